import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { E2E_REPOS } from '../playwright.config';

/** A local git repository with these files, for templates to run from. */
export function gitRepo(files: Record<string, string>): string {
  fs.mkdirSync(E2E_REPOS, { recursive: true });
  const dir = fs.mkdtempSync(path.join(E2E_REPOS, 'repo-'));
  const env = { ...process.env, GIT_AUTHOR_NAME: 'e2e', GIT_AUTHOR_EMAIL: 'e@e', GIT_COMMITTER_NAME: 'e2e', GIT_COMMITTER_EMAIL: 'e@e' };
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  execFileSync('git', ['add', '-A'], { cwd: dir, env });
  execFileSync('git', ['commit', '-qm', 'e2e'], { cwd: dir, env });
  return dir;
}
