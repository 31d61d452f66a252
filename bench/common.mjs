// Shared set-up for the benchmarks: a real server (the built one) on a temp SQLite database,
// an admin session, and a project whose bash template runs a script from a local git repository.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = (p) => path.join(root, 'apps/server/dist', p);

export async function startBenchServer(extraEnv = {}) {
  if (!fs.existsSync(dist('app.js'))) throw new Error('Build first: npm run build');
  const { buildApp } = await import(dist('app.js'));
  const { loadConfig } = await import(dist('config/config.js'));
  const { createDb } = await import(dist('db/db.js'));
  const { migrateToLatest } = await import(dist('db/migrate.js'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-bench-'));
  const config = loadConfig({ GANTRY_DATA_DIR: dataDir, GANTRY_LOG_LEVEL: 'silent', GANTRY_WEB_DIST: '/nonexistent', PATH: process.env.PATH, ...extraEnv });
  const db = createDb(config.dbUrl);
  await migrateToLatest(db);
  const app = await buildApp({ config, db, secretKey: randomBytes(32) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${app.server.address().port}`;
  await app.services.users.create({ username: 'bench', name: 'Bench', email: 'b@e.io', password: 'bench-pass', admin: true, external: false, alert: false });
  const login = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ auth: 'bench', password: 'bench-pass' }) });
  const cookie = login.headers.get('set-cookie').split(';')[0];
  const api = async (method, url, body) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { cookie, 'x-gantry-request': '1', ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (res.status >= 400) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const close = async () => {
    await app.close();
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { app, db, base, cookie, api, close };
}

/** A project with a bash template running `script` from a fresh local repository. */
export async function bashTemplate(api, script) {
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-bench-repo-'));
  fs.writeFileSync(path.join(repo, 'run.sh'), script);
  const env = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@e', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@e' };
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  execFileSync('git', ['add', '-A'], { cwd: repo, env });
  execFileSync('git', ['commit', '-qm', 'bench'], { cwd: repo, env });
  const project = await api('POST', '/api/projects', { name: `bench-${Date.now()}` });
  const key = await api('POST', `/api/project/${project.id}/keys`, { name: 'none', type: 'none' });
  const repository = await api('POST', `/api/project/${project.id}/repositories`, { name: 'r', git_url: repo, ssh_key_id: key.id });
  const environment = await api('POST', `/api/project/${project.id}/environment`, { name: 'e' });
  const template = await api('POST', `/api/project/${project.id}/templates`, { name: 't', app: 'bash', playbook: 'run.sh', repository_id: repository.id, environment_id: environment.id });
  return { projectId: project.id, templateId: template.id };
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
