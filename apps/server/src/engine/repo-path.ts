import path from 'node:path';

/**
 * A path inside a checkout; refuses anything that would climb out of it. Lexical only: for paths
 * handed to a sandboxed process, which the sandbox confines. Paths the server itself opens go
 * through safe-fs (realDirInside, safeReadFile, safeWriteFile).
 */
export function inside(base: string, rel: string): string {
  const full = path.resolve(base, rel);
  const r = path.relative(base, full);
  if (r.startsWith('..') || path.isAbsolute(r)) throw new Error('Path leaves the repository');
  return full;
}
