import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The one folder test repositories live in: the test servers list it in GANTRY_ALLOWED_LOCAL_PATHS
 * (see TEST_ALLOWED_LOCAL_PATHS), as an admin would the folder of their local repositories.
 */
export const FIXTURE_ROOT = path.join(os.tmpdir(), 'gantry-fixtures');

/**
 * GANTRY_ALLOWED_LOCAL_PATHS for test servers: the fixture root, and /srv, where tests name local
 * repositories they never clone (`/srv/r`).
 */
export const TEST_ALLOWED_LOCAL_PATHS = `${FIXTURE_ROOT},/srv`;

/** A local git repository holding the given files, committed on branch main. */
export function gitRepo(files: Record<string, string>, executable: string[] = []): string {
  fs.mkdirSync(FIXTURE_ROOT, { recursive: true });
  const dir = fs.mkdtempSync(path.join(FIXTURE_ROOT, 'repo-'));
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  commitFiles(dir, files, executable, 'initial');
  return dir;
}

export function commitFiles(dir: string, files: Record<string, string>, executable: string[] = [], message = 'change'): string {
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' };
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content, { mode: executable.includes(name) ? 0o755 : 0o644 });
  }
  execFileSync('git', ['add', '-A'], { cwd: dir, env });
  execFileSync('git', ['commit', '-q', '-m', message], { cwd: dir, env });
  return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, env }).toString().trim();
}
