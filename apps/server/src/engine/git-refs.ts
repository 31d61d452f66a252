import fs from 'node:fs';
import path from 'node:path';

/** Past this many loose refs, reading them costs more than the clone it would spare. */
const MAX_LOOSE_REFS = 500;
const MAX_REF_BYTES = 4096;
const MAX_PACKED_REFS = 4 * 1024 * 1024;

/**
 * Everything a clone of the local repository at `repo` copies the branches and tags from, read
 * from its own files (HEAD, packed-refs, the loose refs): the same text means a clone would hold
 * the same commits. Null when it cannot be told that way (a linked worktree, the reftable format,
 * a link or a special file among the refs, too many refs): the caller then just clones.
 */
export function localRefsFingerprint(repo: string): string | null {
  try {
    const gitDir = gitDirOf(repo);
    if (!gitDir) return null;
    // The reftable format keeps refs elsewhere; its refs/ folder is a stub.
    if (fs.existsSync(path.join(gitDir, 'reftable'))) return null;
    const parts: string[] = [];
    const head = readSmall(path.join(gitDir, 'HEAD'), MAX_REF_BYTES);
    if (head === null) return null;
    parts.push(`HEAD ${head}`);
    const packed = readSmall(path.join(gitDir, 'packed-refs'), MAX_PACKED_REFS);
    if (packed !== null) parts.push(`packed-refs ${packed}`);
    const loose: string[] = [];
    if (!walkRefs(path.join(gitDir, 'refs'), 'refs', loose)) return null;
    parts.push(...loose.sort());
    return parts.join('\n');
  } catch {
    return null;
  }
}

/** The repository's git folder: `.git` inside a work tree, or the folder itself when bare. */
function gitDirOf(repo: string): string | null {
  const dotGit = path.join(repo, '.git');
  const st = lstat(dotGit);
  if (st) return st.isDirectory() ? dotGit : null;
  const objects = lstat(path.join(repo, 'objects'));
  return objects?.isDirectory() && lstat(path.join(repo, 'HEAD'))?.isFile() ? repo : null;
}

function walkRefs(dir: string, rel: string, out: string[]): boolean {
  const st = lstat(dir);
  if (!st) return true;
  if (!st.isDirectory()) return false;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const name = `${rel}/${e.name}`;
    if (e.isDirectory()) {
      if (!walkRefs(path.join(dir, e.name), name, out)) return false;
    } else if (e.isFile()) {
      if (out.length >= MAX_LOOSE_REFS) return false;
      const text = readSmall(path.join(dir, e.name), MAX_REF_BYTES);
      if (text === null) return false;
      out.push(`${name} ${text}`);
    } else {
      return false;
    }
  }
  return true;
}

function lstat(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
}

/** A regular file's text, opened without following a link; null when missing, odd or too big. */
function readSmall(file: string, max: number): string | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > max) return null;
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}
