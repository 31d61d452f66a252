// The engine's synchronous workspace file work: making a workspace, copying a kept checkout into
// it, handing it to the task user, removing it. Plain JavaScript so that the file thread
// (file-thread.mjs) and the server's own thread (its fallback, and the tests, which run the
// TypeScript sources) use the same code. None of it follows a link: a task may have planted one
// anywhere in its workspace.
import fs from 'node:fs';
import path from 'node:path';

/**
 * Makes a workspace: `root` (0700, or 0711 when `owner` is given, so the task user may pass
 * through to its own folder), then `dirs` fresh (0700, owned by `owner` when given), the first
 * removed first with whatever an earlier life of the server left in it (links removed, never
 * followed).
 * @param {string} root
 * @param {string[]} dirs
 * @param {{uid: number, gid: number} | null} owner
 */
export function makeWorkspace(root, dirs, owner) {
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  if (owner) fs.chmodSync(root, 0o711);
  fs.rmSync(dirs[0], { recursive: true, force: true });
  for (const d of dirs) {
    fs.mkdirSync(d, { mode: 0o700 });
    if (owner) fs.chownSync(d, owner.uid, owner.gid);
  }
}

/**
 * Copies the tree `src` to `dst` (which must not exist): files with their modes, links recreated
 * as links (never followed), folders made fresh. Answers how many files, folders and links it
 * copied (`dst` itself not counted); throws on anything that is neither a file, a folder nor a link.
 * @param {string} src
 * @param {string} dst
 * @returns {number}
 */
export function copyTree(src, dst) {
  let copied = 0;
  fs.mkdirSync(dst);
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    const from = path.join(src, e.name);
    const to = path.join(dst, e.name);
    if (e.isDirectory()) copied += copyTree(from, to);
    else if (e.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(from), to);
    else if (e.isFile()) fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL);
    else throw new Error(`${from}: neither a file, a folder nor a link`);
    copied++;
  }
  return copied;
}

/**
 * Removes `dir` when it holds at most `max` entries, answering true; answers false, having
 * removed nothing, when it holds more or a step fails (the caller removes it another way). Lists
 * with the entries' own types, so a link is removed as a link and never followed.
 * @param {string} dir
 * @param {number} max
 * @returns {boolean}
 */
export function removeSmallTree(dir, max) {
  /** @type {string[]} */
  const files = [];
  /** @type {string[]} */
  const dirs = [];
  try {
    /** @param {string} d */
    const walk = (d) => {
      dirs.push(d);
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        if (files.length + dirs.length > max) return false;
        const p = path.join(d, e.name);
        if (e.isDirectory()) {
          if (!walk(p)) return false;
        } else files.push(p);
      }
      return true;
    };
    if (!walk(dir)) return false;
    for (const f of files) fs.unlinkSync(f);
    // Deepest first: each folder is empty by the time it goes.
    for (let i = dirs.length - 1; i >= 0; i--) fs.rmdirSync(dirs[i]);
    return true;
  } catch (e) {
    return e?.code === 'ENOENT' && !fs.existsSync(dir);
  }
}

/**
 * Gives `dir` and everything in it to uid:gid without following any link (lchown on every entry,
 * folders walked by lstat): the checkout and the task may have planted links pointing anywhere.
 * @param {string} dir
 * @param {number} uid
 * @param {number} gid
 */
export function handOver(dir, uid, gid) {
  /** @param {string} p */
  const walk = (p) => {
    let st;
    try {
      st = fs.lstatSync(p);
    } catch {
      return;
    }
    if (st.uid !== uid || st.gid !== gid) fs.lchownSync(p, uid, gid);
    if (!st.isDirectory()) return;
    for (const name of fs.readdirSync(p)) walk(`${p}/${name}`);
  };
  walk(dir);
}
