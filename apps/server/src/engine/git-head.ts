import { safeReadFile, UnsafePathError } from './safe-fs.js';

const FULL_HASH = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
/** A branch ref as git writes it in HEAD: no `..`, no leading dot or dash in a component. */
const BRANCH_REF = /^refs\/heads\/(?!.*\.\.)(?!.*\/[.-])[A-Za-z0-9._/-]+$/;
const HEAD_MAX = 4096;
const PACKED_REFS_MAX = 4 * 1024 * 1024;

/**
 * The full hash of the commit checked out in the git clone `dir`, read from its own files
 * (HEAD, then the branch's loose ref or packed-refs) without following any link; null when it
 * cannot be told that way (the caller then asks git).
 */
export function checkedOutCommit(dir: string): string | null {
  try {
    const head = read(dir, '.git/HEAD', HEAD_MAX);
    if (head === null) return null;
    if (FULL_HASH.test(head)) return head;
    const ref = /^ref: (.+)$/.exec(head)?.[1];
    if (!ref || !BRANCH_REF.test(ref)) return null;
    const loose = read(dir, `.git/${ref}`, HEAD_MAX);
    if (loose !== null) return FULL_HASH.test(loose) ? loose : null;
    const packed = read(dir, '.git/packed-refs', PACKED_REFS_MAX);
    for (const line of packed?.split('\n') ?? []) {
      const [hash, name] = line.split(' ');
      if (name === ref && hash && FULL_HASH.test(hash)) return hash;
    }
    return null;
  } catch (e) {
    // A link or an odd file where git keeps its refs: not read, git is asked instead.
    if (e instanceof UnsafePathError) return null;
    throw e;
  }
}

function read(dir: string, rel: string, max: number): string | null {
  return safeReadFile(dir, rel, max)?.toString('utf8').trim() ?? null;
}
