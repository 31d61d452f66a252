// Fails the build when the sign-in route loads more than its budget. The route's cost is what a
// first visit to /auth/login downloads before the form shows: the entry chunk and every chunk it
// imports statically, and the files the build lists for that address in first-routes.json (the
// chunk holding the login page and its static imports; dynamic imports load later, only when used).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const BUDGET_KB = 250;
const LOGIN_PATH = '/auth/login';

const dist = path.resolve(import.meta.dirname, '../dist');
const manifestPath = path.join(dist, '.vite/manifest.json');
if (!fs.existsSync(manifestPath)) fail(`${manifestPath} is missing: run vite build with build.manifest first`);
/** @type {Record<string, { file: string; isEntry?: boolean; imports?: string[]; css?: string[] }>} */
const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));

// Two entries: the page's (index.html) and boot-entry.ts, which only gathers the modules main.tsx
// imports step by step into the page entry's file (src/app/boot-steps.ts).
const BOOT_ENTRY = 'src/app/boot-entry.ts';
const entries = Object.keys(manifest).filter((k) => manifest[k].isEntry);
if (entries.length !== 2 || !entries.includes('index.html') || !entries.includes(BOOT_ENTRY))
  fail(`expected the entries index.html and ${BOOT_ENTRY}, found ${entries.join(', ')}`);
/** @type {Array<{ path: string; files: string[] }>} */
const routes = JSON.parse(fs.readFileSync(path.join(dist, 'first-routes.json'), 'utf8'));
const loginRoute = routes.find((r) => new RegExp(r.path).test(LOGIN_PATH));
if (!loginRoute) fail(`first-routes.json has no route for ${LOGIN_PATH}`);
// The login page with its passkey buttons (app/screens/sign-in.tsx) is loaded beside the entry.
if (loginRoute.files.length === 0) fail(`the login page is in the entry: is the login route still lazy?`);

/** Files (JS and CSS) of these manifest keys and of everything they import statically. */
function staticClosure(keys) {
  const seen = new Set();
  const files = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk) fail(`the manifest has no chunk ${key}`);
    files.add(chunk.file);
    for (const css of chunk.css ?? []) files.add(css);
    for (const dep of chunk.imports ?? []) visit(dep);
  };
  keys.forEach(visit);
  return files;
}

const gzipSize = (file) => zlib.gzipSync(fs.readFileSync(path.join(dist, file)), { level: 9 }).length;

const eager = staticClosure(['index.html']);
// A boot step that needed a file of its own would cost a round trip the page does not preload.
const bootFiles = [...staticClosure([BOOT_ENTRY])].filter((f) => f !== manifest[BOOT_ENTRY].file && !eager.has(f));
if (bootFiles.length) fail(`the boot steps load files beyond the entry's: ${bootFiles.join(', ')}`);
const signIn = new Set([...eager, ...loginRoute.files.map((f) => f.replace(/^\//, ''))]);
const bytes = [...signIn].reduce((sum, f) => sum + gzipSize(f), 0);
const allJs = new Set(Object.values(manifest).map((c) => c.file).filter((f) => f.endsWith('.js')));
const lazy = [...allJs].filter((f) => !eager.has(f));

// vite.config.ts marks `z.…()` calls pure; zod-config.ts's call must survive in the entry, or
// zod would probe `new Function` under the CSP (see src/lib/zod-config.ts).
const entryText = [...eager].map((f) => fs.readFileSync(path.join(dist, f), 'utf8')).join('\n');
if (!/jitless:(!0|true)/.test(entryText)) fail(`zod's jitless setting is missing from the entry chunks`);

const kb = (n) => (n / 1024).toFixed(1);
console.log(`sign-in route: ${kb(bytes)} KB gzip (budget ${BUDGET_KB} KB) in ${signIn.size} files`);
console.log(`lazy chunks: ${lazy.length} (of ${allJs.size} JS chunks)`);
if (bytes > BUDGET_KB * 1024) fail(`the sign-in route is over its budget by ${kb(bytes - BUDGET_KB * 1024)} KB gzip`);

function fail(message) {
  console.error(`check-bundle: ${message}`);
  process.exit(1);
}
