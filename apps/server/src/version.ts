import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository (or installed package) root: package.json, and .git when built from a checkout. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The release version, read once at start: package.json's version with the commit it runs from
 * when there is a git checkout (`0.1.0-abc1234`), else package.json's alone.
 */
export const VERSION: string = releaseVersion(ROOT);

export function releaseVersion(root: string): string {
  const version = packageVersion(root);
  const commit = gitCommit(root);
  return commit ? `${version}-${commit.slice(0, 7)}` : version;
}

function packageVersion(root: string): string {
  try {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' && pkg.version ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * The commit HEAD names, read from git's own files (no process is started): `.git` is a folder or,
 * in a worktree, a file naming one; HEAD holds a commit or a ref, which is a loose file or a line
 * of packed-refs (in the common folder for a worktree). Null when anything is missing or odd.
 */
export function gitCommit(root: string): string | null {
  let gitDir = path.join(root, '.git');
  try {
    if (statSync(gitDir).isFile()) {
      const target = /^gitdir:\s*(.+)$/m.exec(readText(gitDir) ?? '')?.[1]?.trim();
      if (!target) return null;
      gitDir = path.resolve(root, target);
    }
  } catch {
    return null;
  }
  const commonDir = readText(path.join(gitDir, 'commondir'))?.trim();
  const common = commonDir ? path.resolve(gitDir, commonDir) : gitDir;
  const head = readText(path.join(gitDir, 'HEAD'))?.trim() ?? '';
  if (SHA.test(head)) return head;
  const ref = /^ref:\s*(refs\/\S+)$/.exec(head)?.[1];
  if (!ref || ref.split('/').some((part) => part === '..' || part === '.')) return null;
  for (const dir of new Set([gitDir, common])) {
    const loose = readText(path.join(dir, ref))?.trim();
    if (loose && SHA.test(loose)) return loose;
  }
  for (const line of (readText(path.join(common, 'packed-refs')) ?? '').split('\n')) {
    const [hash, name] = line.trim().split(' ');
    if (name === ref && hash && SHA.test(hash)) return hash;
  }
  return null;
}
