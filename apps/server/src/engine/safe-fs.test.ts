import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  copyTreeNoLinks,
  realDirInside,
  safeDir,
  safeLstat,
  safeReadFile,
  safeRemove,
  safeWriteFile,
  UnsafePathError,
} from './safe-fs.js';

const MAX = 1024 * 1024;
let base: string;
/** The workspace (a real path) and, beside it, what a link may point at. */
let ws: string;
let outside: string;
let secret: string;

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-safe-fs-')));
  ws = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  fs.mkdirSync(ws);
  fs.mkdirSync(outside);
  secret = path.join(outside, 'secret.key');
  fs.writeFileSync(secret, 'SECRET-BYTES');
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(base, { recursive: true, force: true });
});

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof UnsafePathError) return e.reason;
    throw e;
  }
  throw new Error('not refused');
};
const fifo = (p: string) => execFileSync('mkfifo', [p]);

describe('safeReadFile', () => {
  it('reads a regular file; null when it or a folder on its way is missing', () => {
    fs.mkdirSync(path.join(ws, 'a'));
    fs.writeFileSync(path.join(ws, 'a', 'f.txt'), 'hello');
    expect(safeReadFile(ws, 'a/f.txt', MAX)?.toString()).toBe('hello');
    expect(safeReadFile(ws, 'a/missing', MAX)).toBeNull();
    expect(safeReadFile(ws, 'b/f.txt', MAX)).toBeNull();
  });

  it('follows no link: to a file outside, to /, a dangling one, or one on a folder of the way', () => {
    fs.symlinkSync(secret, path.join(ws, 'to-file'));
    fs.symlinkSync('/', path.join(ws, 'to-root'));
    fs.symlinkSync(path.join(outside, 'nothing'), path.join(ws, 'dangling'));
    fs.symlinkSync('../outside/secret.key', path.join(ws, 'relative'));
    expect(refusal(() => safeReadFile(ws, 'to-file', MAX))).toBe('is a symbolic link, not a regular file');
    expect(refusal(() => safeReadFile(ws, 'to-root', MAX))).toBe('is a symbolic link, not a regular file');
    expect(refusal(() => safeReadFile(ws, 'dangling', MAX))).toBe('is a symbolic link, not a regular file');
    expect(refusal(() => safeReadFile(ws, 'relative', MAX))).toBe('is a symbolic link, not a regular file');
    expect(refusal(() => safeReadFile(ws, 'to-root/etc/passwd', MAX))).toBe('to-root is a symbolic link, not a folder');
    fs.symlinkSync(outside, path.join(ws, 'dir'));
    expect(refusal(() => safeReadFile(ws, 'dir/secret.key', MAX))).toBe('dir is a symbolic link, not a folder');
  });

  it('refuses a pipe without blocking, a hard link, a file over the cap, and paths that climb out', () => {
    fifo(path.join(ws, 'pipe'));
    expect(refusal(() => safeReadFile(ws, 'pipe', MAX))).toBe('is a named pipe, not a regular file');
    fs.linkSync(secret, path.join(ws, 'hard'));
    expect(refusal(() => safeReadFile(ws, 'hard', MAX))).toBe('has other hard links');
    fs.writeFileSync(path.join(ws, 'big'), 'x'.repeat(2048));
    expect(refusal(() => safeReadFile(ws, 'big', 1024))).toBe('is larger than 1024 bytes');
    expect(safeReadFile(ws, 'big', 2048)?.length).toBe(2048);
    expect(refusal(() => safeReadFile(ws, '../outside/secret.key', MAX))).toBe('leaves the workspace');
    expect(refusal(() => safeReadFile(ws, secret, MAX))).toBe('is an absolute path');
  });

  it('refuses a root that is a link or has one on its path', () => {
    fs.symlinkSync(outside, path.join(base, 'linked-ws'));
    expect(refusal(() => safeReadFile(path.join(base, 'linked-ws'), 'secret.key', MAX))).toMatch(/not a real folder/);
    expect(refusal(() => safeReadFile(path.join(base, 'linked-ws', '.'), 'secret.key', MAX))).toMatch(
      /not a real folder/,
    );
  });

  it('race: a folder swapped for a link after it was checked is caught by the opened file', () => {
    fs.mkdirSync(path.join(ws, 'sub'));
    fs.writeFileSync(path.join(ws, 'sub', 'secret.key'), 'harmless');
    const lstat = fs.lstatSync;
    // Between the walk and the open, `sub` becomes a link to the outside folder.
    vi.spyOn(fs, 'lstatSync').mockImplementation(((p: fs.PathLike, o?: fs.StatSyncOptions) => {
      if (p === path.join(ws, 'sub', 'secret.key') && lstat(path.join(ws, 'sub')).isDirectory()) {
        fs.renameSync(path.join(ws, 'sub'), path.join(ws, 'sub.old'));
        fs.symlinkSync(outside, path.join(ws, 'sub'));
      }
      return lstat(p, o);
    }) as typeof fs.lstatSync);
    expect(refusal(() => safeReadFile(ws, 'sub/secret.key', MAX))).toMatch(/opened outside the workspace/);
  });
});

describe('safeWriteFile', () => {
  it('replaces a link (its target is unchanged), a pipe or a file by a new 0600 file', () => {
    fs.symlinkSync(secret, path.join(ws, 'f'));
    const file = safeWriteFile(ws, 'f', 'new');
    expect(file).toBe(path.join(ws, 'f'));
    expect(fs.readFileSync(secret, 'utf8')).toBe('SECRET-BYTES');
    expect(fs.lstatSync(file).isFile()).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
    fifo(path.join(ws, 'pipe'));
    safeWriteFile(ws, 'pipe', 'p', { mode: 0o644 });
    expect(fs.readFileSync(path.join(ws, 'pipe'), 'utf8')).toBe('p');
    expect(fs.statSync(path.join(ws, 'pipe')).mode & 0o777).toBe(0o644);
    fs.symlinkSync(path.join(outside, 'nothing'), path.join(ws, 'dangling'));
    safeWriteFile(ws, 'dangling', 'd');
    expect(fs.existsSync(path.join(outside, 'nothing'))).toBe(false);
  });

  it('writes nothing through a linked folder and refuses to replace a folder', () => {
    fs.symlinkSync(outside, path.join(ws, 'dir'));
    expect(refusal(() => safeWriteFile(ws, 'dir/secret.key', 'x'))).toBe('dir is a symbolic link, not a folder');
    expect(refusal(() => safeWriteFile(ws, 'dir/new', 'x', { mode: 0o600 }, { mode: 0o700 }))).toBe(
      'dir is a symbolic link, not a folder',
    );
    expect(fs.readdirSync(outside)).toEqual(['secret.key']);
    expect(fs.readFileSync(secret, 'utf8')).toBe('SECRET-BYTES');
    fs.mkdirSync(path.join(ws, 'folder'));
    expect(refusal(() => safeWriteFile(ws, 'folder', 'x'))).toBe('is a folder');
    expect(refusal(() => safeWriteFile(ws, 'missing/f', 'x'))).toBe('its folder does not exist');
    safeWriteFile(ws, 'made/deep/f', 'x', { mode: 0o600 }, { mode: 0o700 });
    expect(fs.statSync(path.join(ws, 'made', 'deep')).mode & 0o777).toBe(0o700);
  });

  it('race: a folder swapped for a link after the walk: nothing outside is overwritten, and the new file is removed', () => {
    fs.mkdirSync(path.join(ws, 'sub'));
    const lstat = fs.lstatSync;
    vi.spyOn(fs, 'lstatSync').mockImplementation(((p: fs.PathLike, o?: fs.StatSyncOptions) => {
      if (p === path.join(ws, 'sub', 'planted') && lstat(path.join(ws, 'sub')).isDirectory()) {
        fs.renameSync(path.join(ws, 'sub'), path.join(ws, 'sub.old'));
        fs.symlinkSync(outside, path.join(ws, 'sub'));
      }
      return lstat(p, o);
    }) as typeof fs.lstatSync);
    expect(refusal(() => safeWriteFile(ws, 'sub/planted', 'x'))).toMatch(/opened outside the workspace/);
    expect(fs.readdirSync(outside)).toEqual(['secret.key']);
  });

  it('gives the file and the folders it makes to an owner (root only)', () => {
    if (process.getuid?.() !== 0) return;
    safeWriteFile(
      ws,
      'd/f',
      'x',
      { mode: 0o600, owner: { uid: 65534, gid: 65534 } },
      { mode: 0o700, owner: { uid: 65534, gid: 65534 } },
    );
    expect(fs.statSync(path.join(ws, 'd')).uid).toBe(65534);
    expect(fs.statSync(path.join(ws, 'd', 'f'))).toMatchObject({ uid: 65534, gid: 65534 });
  });
});

describe('safeDir, safeLstat, safeRemove', () => {
  it('answers real folders only; makes missing ones when asked', () => {
    fs.mkdirSync(path.join(ws, 'a'));
    expect(safeDir(ws, 'a')).toBe(path.join(ws, 'a'));
    expect(safeDir(ws, 'a/b')).toBeNull();
    expect(safeDir(ws, 'a/b/c', { mode: 0o700 })).toBe(path.join(ws, 'a', 'b', 'c'));
    fs.symlinkSync('/', path.join(ws, 'root'));
    expect(refusal(() => safeDir(ws, 'root/tmp', { mode: 0o700 }))).toBe('root is a symbolic link, not a folder');
    fs.writeFileSync(path.join(ws, 'file'), '');
    expect(refusal(() => safeDir(ws, 'file'))).toBe('file is a file, not a folder');
    expect(safeLstat(ws, 'root')?.isSymbolicLink()).toBe(true);
    expect(safeLstat(ws, 'nope/x')).toBeNull();
  });

  it('removes a link, not what it points at', () => {
    fs.symlinkSync(outside, path.join(ws, 'dir'));
    fs.symlinkSync(secret, path.join(ws, 'f'));
    safeRemove(ws, 'dir');
    safeRemove(ws, 'f');
    safeRemove(ws, 'missing');
    expect(fs.readdirSync(ws)).toEqual([]);
    expect(fs.readFileSync(secret, 'utf8')).toBe('SECRET-BYTES');
    fs.mkdirSync(path.join(ws, 'tree'));
    fs.symlinkSync(outside, path.join(ws, 'tree', 'inner'));
    safeRemove(ws, 'tree');
    expect(fs.readdirSync(outside)).toEqual(['secret.key']);
  });
});

describe('realDirInside', () => {
  it('resolves a link that stays in the repository, refuses one that leaves it', () => {
    fs.mkdirSync(path.join(ws, 'envs', 'prod'), { recursive: true });
    fs.symlinkSync('envs/prod', path.join(ws, 'infra'));
    fs.symlinkSync(outside, path.join(ws, 'out'));
    fs.writeFileSync(path.join(ws, 'main.tf'), '');
    expect(realDirInside(ws, 'infra')).toBe(path.join(ws, 'envs', 'prod'));
    expect(realDirInside(ws, '.')).toBe(ws);
    expect(realDirInside(ws, '')).toBe(ws);
    expect(refusal(() => realDirInside(ws, 'out'))).toBe('is a link that leaves the repository');
    expect(refusal(() => realDirInside(ws, '../outside'))).toBe('leaves the repository');
    expect(refusal(() => realDirInside(ws, 'missing'))).toBe('is not in the repository');
    expect(refusal(() => realDirInside(ws, 'main.tf'))).toBe('is not a folder');
  });
});

describe('copyTreeNoLinks', () => {
  it('copies regular files and folders only, and says what it left out', () => {
    const src = path.join(base, 'src');
    fs.mkdirSync(path.join(src, 'tree', 'sub'), { recursive: true });
    fs.writeFileSync(path.join(src, 'tree', 'a'), 'A');
    fs.writeFileSync(path.join(src, 'tree', 'sub', 'b'), 'B');
    fs.symlinkSync(secret, path.join(src, 'tree', 'link'));
    fs.symlinkSync(outside, path.join(src, 'tree', 'dirlink'));
    fs.symlinkSync('/', path.join(src, 'tree', 'root'));
    fifo(path.join(src, 'tree', 'pipe'));
    const r = copyTreeNoLinks(src, ws, 'tree', { maxBytes: MAX });
    expect(r.copied).toEqual(['tree/a', 'tree/sub/b']);
    expect(r.skipped).toEqual([
      { rel: 'tree/dirlink', reason: 'is a symbolic link' },
      { rel: 'tree/link', reason: 'is a symbolic link' },
      { rel: 'tree/pipe', reason: 'is a named pipe' },
      { rel: 'tree/root', reason: 'is a symbolic link' },
    ]);
    expect(fs.readdirSync(path.join(ws, 'tree')).sort()).toEqual(['a', 'sub']);
    expect(fs.statSync(path.join(ws, 'tree', 'sub')).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(ws, 'tree', 'sub', 'b')).mode & 0o777).toBe(0o600);
  });

  it('replaces links in the way at the destination without writing through them', () => {
    const src = path.join(base, 'src');
    fs.mkdirSync(path.join(src, 'state.d', 'ws1'), { recursive: true });
    fs.writeFileSync(path.join(src, 'state'), 'S');
    fs.writeFileSync(path.join(src, 'state.d', 'ws1', 'state'), 'W');
    fs.symlinkSync(secret, path.join(ws, 'state'));
    fs.symlinkSync(outside, path.join(ws, 'state.d'));
    expect(copyTreeNoLinks(src, ws, 'state', { maxBytes: MAX }).copied).toEqual(['state']);
    expect(copyTreeNoLinks(src, ws, 'state.d', { maxBytes: MAX }).copied).toEqual(['state.d/ws1/state']);
    expect(fs.readFileSync(secret, 'utf8')).toBe('SECRET-BYTES');
    expect(fs.readdirSync(outside)).toEqual(['secret.key']);
    expect(fs.lstatSync(path.join(ws, 'state.d')).isDirectory()).toBe(true);
    expect(fs.readFileSync(path.join(ws, 'state.d', 'ws1', 'state'), 'utf8')).toBe('W');
  });

  it('leaves out files its check refuses, files over the cap and folders nested too deep', () => {
    const src = path.join(base, 'src');
    fs.mkdirSync(path.join(src, 'd', 'one', 'two'), { recursive: true });
    fs.writeFileSync(path.join(src, 'd', 'ok'), '{}');
    fs.writeFileSync(path.join(src, 'd', 'bad'), 'nope');
    fs.writeFileSync(path.join(src, 'd', 'big'), 'x'.repeat(100));
    const r = copyTreeNoLinks(src, ws, 'd', {
      maxBytes: 50,
      maxDepth: 1,
      check: (_rel, data) => (data.toString() === 'nope' ? 'not wanted' : null),
    });
    expect(r.copied).toEqual(['d/ok']);
    expect(r.skipped).toEqual([
      { rel: 'd/bad', reason: 'not wanted' },
      { rel: 'd/big', reason: 'is larger than 50 bytes' },
      { rel: 'd/one/two', reason: 'is nested too deep' },
    ]);
  });

  it('copies nothing for a missing entry', () => {
    expect(copyTreeNoLinks(outside, ws, 'missing', { maxBytes: MAX })).toEqual({ copied: [], skipped: [] });
  });
});
