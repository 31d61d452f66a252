import fs from 'node:fs';
import path from 'node:path';

/*
 * The server's door into a task workspace (and into folders it fills from one). From the moment a
 * checkout or a task process has touched a folder, every entry in it may be a link, a pipe or a
 * path swapped between two looks, so nothing here follows a link: every folder on the way is
 * lstat-checked to be a real folder under the root, the last component is opened with O_NOFOLLOW
 * (writes with O_CREAT|O_EXCL after removing what was there), and the opened descriptor is checked
 * again (a regular file, its real path under the root) before a byte is read or written.
 *
 * Roots are real paths (no link anywhere on them): the caller resolves one once, before any task
 * process ran (realDirInside), and every call checks it still resolves to itself.
 */

const C = fs.constants;

/** Why the server refused an entry: a link, a special file, a path leaving the root, a file too big. */
export class UnsafePathError extends Error {
  constructor(
    /** The entry, relative to the root it was looked up in. */
    readonly rel: string,
    readonly reason: string,
  ) {
    super(`${rel}: ${reason}`);
    this.name = 'UnsafePathError';
  }
}

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;

function within(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch (e) {
    if (errno(e) === 'ENOENT') return null;
    throw e;
  }
}

/** What an entry is, for messages. */
function kindOf(st: fs.Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a folder';
  if (st.isFile()) return 'a file';
  if (st.isFIFO()) return 'a named pipe';
  if (st.isSocket()) return 'a socket';
  return 'a device';
}

/** The components of `rel`; refuses absolute paths and any that climbs out of the root. */
function components(rel: string): string[] {
  if (rel.includes('\0')) throw new UnsafePathError(rel, 'contains a NUL byte');
  if (path.isAbsolute(rel)) throw new UnsafePathError(rel, 'is an absolute path');
  const parts = path
    .normalize(rel)
    .split(path.sep)
    .filter((p) => p !== '' && p !== '.');
  if (parts[0] === '..') throw new UnsafePathError(rel, 'leaves the workspace');
  return parts;
}

/** Throws unless `root` is an absolute real folder that resolves to itself (no link on its path). */
function checkRoot(root: string): string {
  const st = path.isAbsolute(root) ? lstatOrNull(root) : null;
  if (!st?.isDirectory() || fs.realpathSync.native(root) !== path.resolve(root))
    throw new UnsafePathError(root, 'is not a real folder (a link on its path, or gone)');
  return path.resolve(root);
}

/**
 * Walks `parts` down from `root`: each must be a real folder (not a link); missing ones are made
 * as `create` says when given, else the answer is null. The folder reached must resolve to itself.
 */
function walkDirs(root: string, parts: string[], rel: string, create: NewEntry | null): string | null {
  let cur = root;
  for (const part of parts) {
    cur = path.join(cur, part);
    let st = lstatOrNull(cur);
    if (!st && create !== null) {
      makeDir(cur, create);
      st = lstatOrNull(cur);
    }
    if (!st) return null;
    if (!st.isDirectory()) throw new UnsafePathError(rel, `${path.relative(root, cur)} is ${kindOf(st)}, not a folder`);
  }
  // Each component was a folder when looked at; the resolved path shows none was swapped since.
  if (fs.realpathSync.native(cur) !== cur) throw new UnsafePathError(rel, 'resolves elsewhere (a link was planted)');
  return cur;
}

/** Who owns what the server makes in a workspace (a root server's task user), and its mode. */
export interface NewEntry {
  mode: number;
  owner?: { uid: number; gid: number } | null;
}

/** A new folder (EEXIST is left to the caller's lstat), given to `owner` without following a link. */
function makeDir(dir: string, e: NewEntry): void {
  try {
    fs.mkdirSync(dir, { mode: e.mode });
  } catch (err) {
    if (errno(err) === 'EEXIST') return;
    throw err;
  }
  if (e.owner) fs.lchownSync(dir, e.owner.uid, e.owner.gid);
}

/** Where an open descriptor really is (Linux /proc), or null where that cannot be told. */
function fdPath(fd: number): string | null {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/** Closes `fd` and throws when it was opened outside `root` (a folder swapped after the checks). */
function checkFd(fd: number, root: string, rel: string): void {
  const where = fdPath(fd);
  if (where !== null && !within(root, where)) {
    fs.closeSync(fd);
    throw new UnsafePathError(rel, 'was opened outside the workspace (a link was planted)');
  }
}

/** The entry's lstat, or null when it (or a folder on its way) is missing; never follows a link. */
export function safeLstat(root: string, rel: string): fs.Stats | null {
  const r = checkRoot(root);
  const parts = components(rel);
  if (parts.length === 0) return fs.lstatSync(r);
  const dir = walkDirs(r, parts.slice(0, -1), rel, null);
  return dir === null ? null : lstatOrNull(path.join(dir, parts[parts.length - 1]!));
}

/**
 * A folder under `root` with no link on its way: every component lstat-checked and the result
 * resolving to itself. Missing folders are made as `create` says when given; otherwise the
 * answer is null when one is missing.
 */
export function safeDir(root: string, rel: string, create?: NewEntry): string | null {
  return walkDirs(checkRoot(root), components(rel), rel, create ?? null);
}

/**
 * The contents of the regular file `rel` under `root`, or null when there is none. Throws
 * UnsafePathError when it (or a folder on its way) is a link, when it is not a regular file or has
 * other hard links, or when it is larger than `maxBytes`.
 */
export function safeReadFile(root: string, rel: string, maxBytes: number): Buffer | null {
  const r = checkRoot(root);
  const parts = components(rel);
  if (parts.length === 0) throw new UnsafePathError(rel, 'is the workspace folder');
  const dir = walkDirs(r, parts.slice(0, -1), rel, null);
  if (dir === null) return null;
  const file = path.join(dir, parts[parts.length - 1]!);
  const seen = lstatOrNull(file);
  if (!seen) return null;
  // Refused before opening: opening a pipe or a device may block or have effects.
  if (!seen.isFile()) throw new UnsafePathError(rel, `is ${kindOf(seen)}, not a regular file`);
  let fd: number;
  try {
    // O_NONBLOCK: a pipe swapped in after the lstat does not hang the server.
    fd = fs.openSync(file, C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK | C.O_NOCTTY);
  } catch (e) {
    if (errno(e) === 'ENOENT') return null;
    if (errno(e) === 'ELOOP') throw new UnsafePathError(rel, 'is a symbolic link');
    throw e;
  }
  checkFd(fd, r, rel);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new UnsafePathError(rel, `is ${kindOf(st)}, not a regular file`);
    if (st.dev !== seen.dev || st.ino !== seen.ino) throw new UnsafePathError(rel, 'was replaced while being read');
    if (st.nlink > 1) throw new UnsafePathError(rel, 'has other hard links');
    if (st.size > maxBytes) throw new UnsafePathError(rel, `is larger than ${maxBytes} bytes`);
    const chunks: Buffer[] = [];
    const buf = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1));
    let total = 0;
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      // It may grow while read: the cap holds whatever fstat said.
      if (total > maxBytes) throw new UnsafePathError(rel, `is larger than ${maxBytes} bytes`);
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks, total);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes a new regular file `rel` under `root`: whatever entry was there (a file, a link, a pipe)
 * is removed, never followed; a folder there is refused. The file is created with
 * O_CREAT|O_EXCL|O_NOFOLLOW (mode and owner from `file`, default 0600) in a folder checked as for
 * safeDir; missing folders are made as `dirs` says when given. Answers the file's path.
 */
export function safeWriteFile(
  root: string,
  rel: string,
  data: string | Buffer,
  file: NewEntry = { mode: 0o600 },
  dirs?: NewEntry,
): string {
  const r = checkRoot(root);
  const parts = components(rel);
  if (parts.length === 0) throw new UnsafePathError(rel, 'is the workspace folder');
  const dir = walkDirs(r, parts.slice(0, -1), rel, dirs ?? null);
  if (dir === null) throw new UnsafePathError(rel, 'its folder does not exist');
  const target = path.join(dir, parts[parts.length - 1]!);
  const existing = lstatOrNull(target);
  if (existing?.isDirectory()) throw new UnsafePathError(rel, 'is a folder');
  if (existing) fs.unlinkSync(target);
  let fd: number;
  try {
    fd = fs.openSync(target, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW | C.O_NOCTTY, file.mode);
  } catch (e) {
    if (errno(e) === 'EEXIST' || errno(e) === 'ELOOP')
      throw new UnsafePathError(rel, 'reappeared while being replaced');
    throw e;
  }
  const where = fdPath(fd);
  if (where !== null && !within(r, where)) {
    // A folder was swapped for a link after the checks: O_EXCL made a new, empty file there and
    // overwrote nothing. That file (and only it, by inode) is removed again.
    const made = fs.fstatSync(fd);
    fs.closeSync(fd);
    const now = lstatOrNull(where);
    if (now && now.ino === made.ino && now.dev === made.dev) fs.unlinkSync(where);
    throw new UnsafePathError(rel, 'was opened outside the workspace (a link was planted)');
  }
  try {
    fs.fchmodSync(fd, file.mode);
    if (file.owner) fs.fchownSync(fd, file.owner.uid, file.owner.gid);
    fs.writeFileSync(fd, data);
  } finally {
    fs.closeSync(fd);
  }
  return target;
}

/** Removes the entry `rel` under `root` if there is one: a link is removed, never followed. */
export function safeRemove(root: string, rel: string): void {
  const r = checkRoot(root);
  const parts = components(rel);
  if (parts.length === 0) throw new UnsafePathError(rel, 'is the workspace folder');
  const dir = walkDirs(r, parts.slice(0, -1), rel, null);
  if (dir === null) return;
  const entry = path.join(dir, parts[parts.length - 1]!);
  const st = lstatOrNull(entry);
  if (!st) return;
  // fs.rm removes links inside a folder as links; it does not follow them.
  if (st.isDirectory()) fs.rmSync(entry, { recursive: true, force: true });
  else fs.unlinkSync(entry);
}

/**
 * The real folder `rel` names under `base`, for a folder the server will open paths in. Links are
 * resolved (a checkout may link one of its folders to another), but the result must stay inside
 * `base`: a link out of the repository is refused. Call it before any task process ran; later
 * calls of this module with the answer as root check it still resolves to itself.
 */
export function realDirInside(base: string, rel: string): string {
  const realBase = fs.realpathSync.native(base);
  const lexical = path.resolve(realBase, rel);
  if (!within(realBase, lexical)) throw new UnsafePathError(rel, 'leaves the repository');
  let real: string;
  try {
    real = fs.realpathSync.native(lexical);
  } catch (e) {
    if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR') throw new UnsafePathError(rel, 'is not in the repository');
    throw e;
  }
  if (!within(realBase, real)) throw new UnsafePathError(rel, 'is a link that leaves the repository');
  if (!fs.lstatSync(real).isDirectory()) throw new UnsafePathError(rel, 'is not a folder');
  return real;
}

export interface CopyOptions {
  /** No file larger is copied. */
  maxBytes: number;
  /** Mode of the files written (default 0600) and of the folders made (default 0700). */
  fileMode?: number;
  dirMode?: number;
  /** Who owns what is written (a root server's task user); the server's user when absent. */
  owner?: { uid: number; gid: number } | null;
  /** Folders deeper than this under `rel` are not entered (default 16). */
  maxDepth?: number;
  /** Why a file read from the source must not be copied, or null to copy it. */
  check?(rel: string, data: Buffer): string | null;
  /**
   * The bytes written for a file that passed `check` (default: the bytes read), e.g. sealed or
   * opened; throwing UnsafePathError skips the file with its reason.
   */
  transform?(rel: string, data: Buffer): Buffer;
}

export interface CopyResult {
  copied: string[];
  /** What was left out and why: links, pipes, devices, files failing `check` or too big. */
  skipped: Array<{ rel: string; reason: string }>;
}

/** An entry of `root` replaced by a real folder when it is anything else (a link is removed, not followed). */
function replaceWithDir(root: string, rel: string, e: NewEntry): void {
  const parts = components(rel);
  const parent = walkDirs(checkRoot(root), parts.slice(0, -1), rel, e);
  if (parent === null) throw new UnsafePathError(rel, 'its folder does not exist');
  const dir = path.join(parent, parts[parts.length - 1]!);
  const st = lstatOrNull(dir);
  if (st && !st.isDirectory()) fs.unlinkSync(dir);
  if (!st?.isDirectory()) makeDir(dir, e);
  walkDirs(root, parts, rel, null);
}

/**
 * Copies the entry `rel` (a file or a folder tree) from under `srcRoot` to the same place under
 * `dstRoot`, regular files and folders only: links, pipes, sockets and devices in the source are
 * skipped (and said so), entries in the way at the destination are replaced without being
 * followed, files already at the destination are overwritten, others are left. Both sides are
 * read and written as safeReadFile/safeWriteFile do.
 */
export function copyTreeNoLinks(srcRoot: string, dstRoot: string, rel: string, o: CopyOptions): CopyResult {
  const src = checkRoot(srcRoot);
  const dst = checkRoot(dstRoot);
  const file: NewEntry = { mode: o.fileMode ?? 0o600, owner: o.owner };
  const dirs: NewEntry = { mode: o.dirMode ?? 0o700, owner: o.owner };
  const maxDepth = o.maxDepth ?? 16;
  const result: CopyResult = { copied: [], skipped: [] };
  if (components(rel).length === 0) throw new UnsafePathError(rel, 'is the workspace folder');

  const visit = (entry: string, depth: number): void => {
    try {
      const st = safeLstat(src, entry);
      if (!st) return;
      if (st.isDirectory()) {
        if (depth > maxDepth) throw new UnsafePathError(entry, 'is nested too deep');
        replaceWithDir(dst, entry, dirs);
        // Listed after its lstat: a folder swapped for a link since lists names whose walk refuses them.
        let names: string[];
        try {
          names = fs.readdirSync(path.join(src, entry));
        } catch (e) {
          throw new UnsafePathError(entry, `could not be listed (${errno(e) ?? 'error'})`);
        }
        for (const name of names.sort()) visit(path.join(entry, name), depth + 1);
        return;
      }
      if (!st.isFile()) throw new UnsafePathError(entry, `is ${kindOf(st)}`);
      const data = safeReadFile(src, entry, o.maxBytes);
      if (data === null) return;
      const refused = o.check?.(entry, data) ?? null;
      if (refused !== null) throw new UnsafePathError(entry, refused);
      safeWriteFile(dst, entry, o.transform ? o.transform(entry, data) : data, file, dirs);
      result.copied.push(entry);
    } catch (e) {
      if (!(e instanceof UnsafePathError)) throw e;
      result.skipped.push({ rel: entry, reason: e.reason });
    }
  };
  visit(rel, 0);
  return result;
}
