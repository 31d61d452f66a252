import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileThread } from './file-thread.js';

const made: string[] = [];
const threads: FileThread[] = [];
afterEach(async () => {
  for (const t of threads.splice(0)) await t.close();
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-file-thread-'));
  made.push(d);
  return d;
}

function thread(): FileThread {
  const t = new FileThread();
  threads.push(t);
  return t;
}

/** A tree with a nested folder, an executable, and links to a file and a folder outside it. */
function sampleTree(root: string): { src: string; outsideFile: string; outsideDir: string } {
  const src = path.join(root, 'src');
  const outsideDir = path.join(root, 'outside');
  const outsideFile = path.join(outsideDir, 'secret.txt');
  fs.mkdirSync(path.join(src, 'a', 'b'), { recursive: true });
  fs.mkdirSync(outsideDir);
  fs.writeFileSync(outsideFile, 'keep me');
  fs.writeFileSync(path.join(src, 'a', 'b', 'file.txt'), 'hello');
  fs.writeFileSync(path.join(src, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
  fs.symlinkSync(outsideFile, path.join(src, 'to-file'));
  fs.symlinkSync(outsideDir, path.join(src, 'a', 'to-dir'));
  return { src, outsideFile, outsideDir };
}

describe('FileThread', () => {
  it('makes a workspace afresh: what an earlier life left is removed without following its links', async () => {
    const root = tempDir();
    const outside = path.join(root, 'outside.txt');
    fs.writeFileSync(outside, 'keep me');
    const tasks = path.join(root, 'tasks');
    const dir = path.join(tasks, 'task_1');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'left-over'), 'old');
    fs.symlinkSync(outside, path.join(dir, 'link'));
    const owner = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : null;
    await thread().makeWorkspace(tasks, [dir, path.join(dir, 'home'), path.join(dir, 'secrets')], owner);
    expect(fs.readdirSync(dir).sort()).toEqual(['home', 'secrets']);
    expect(fs.readFileSync(outside, 'utf8')).toBe('keep me');
    expect(fs.statSync(tasks).mode & 0o777).toBe(owner ? 0o711 : 0o700);
    for (const d of [dir, path.join(dir, 'home'), path.join(dir, 'secrets')]) {
      expect(fs.statSync(d).mode & 0o777).toBe(0o700);
      if (owner) expect(fs.statSync(d).uid).toBe(owner.uid);
    }
  });

  it('copies a tree on its thread: files with their modes, links as links, and counts what it copied', async () => {
    const root = tempDir();
    const { src, outsideFile } = sampleTree(root);
    const dst = path.join(root, 'dst');
    const t = thread();
    expect(await t.copyTree(src, dst)).toBe(6);
    expect(t.started).toBe(true);
    expect(fs.readFileSync(path.join(dst, 'a', 'b', 'file.txt'), 'utf8')).toBe('hello');
    expect(fs.statSync(path.join(dst, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(fs.lstatSync(path.join(dst, 'to-file')).isSymbolicLink()).toBe(true);
    expect(fs.readlinkSync(path.join(dst, 'to-file'))).toBe(outsideFile);
    expect(fs.lstatSync(path.join(dst, 'a', 'to-dir')).isSymbolicLink()).toBe(true);
  });

  it('removes a tree without following its links, and leaves one over the bound alone', async () => {
    const root = tempDir();
    const { src, outsideFile, outsideDir } = sampleTree(root);
    const t = thread();
    expect(await t.removeSmallTree(src, 3)).toBe(false);
    expect(fs.existsSync(path.join(src, 'a', 'b', 'file.txt'))).toBe(true);
    expect(await t.removeSmallTree(src, 100)).toBe(true);
    expect(fs.existsSync(src)).toBe(false);
    expect(fs.readFileSync(outsideFile, 'utf8')).toBe('keep me');
    expect(fs.existsSync(outsideDir)).toBe(true);
  });

  it('passes a failure back with its code', async () => {
    const root = tempDir();
    const { src } = sampleTree(root);
    const t = thread();
    await expect(t.copyTree(src, src)).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(t.copyTree(path.join(root, 'missing'), path.join(root, 'x'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });

  it('finishes what was asked on the calling thread when its thread dies, and starts a new one for the next call', async () => {
    const root = tempDir();
    const dirs = [1, 2, 3].map((i) => {
      const d = path.join(root, `ws-${i}`);
      sampleTree(d);
      return d;
    });
    const t = thread();
    const removals = dirs.map((d) => t.removeSmallTree(d, 100));
    // A crash (out of memory, a fatal error), not a close: nothing it had not answered is lost.
    await (t as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    expect(await Promise.all(removals)).toEqual([true, true, true]);
    for (const d of dirs) expect(fs.existsSync(d)).toBe(false);
    expect(t.started).toBe(false);
    expect(
      await t.copyTree(path.join(root, 'ws-none'), path.join(root, 'x')).catch((e: NodeJS.ErrnoException) => e.code),
    ).toBe('ENOENT');
    expect(t.started).toBe(true);
  });

  it('answers what it was asked before it closes', async () => {
    const root = tempDir();
    const { src } = sampleTree(root);
    const t = thread();
    const copies = [1, 2, 3].map((i) => t.copyTree(src, path.join(root, `copy-${i}`)));
    await t.close();
    expect(await Promise.all(copies)).toEqual([6, 6, 6]);
    expect(t.started).toBe(false);
  });

  it.runIf(process.getuid?.() === 0)('hands a tree over to a user without following its links (root)', async () => {
    const root = tempDir();
    const { src, outsideFile } = sampleTree(root);
    await thread().handOver(src, 65534, 65534);
    for (const p of [src, path.join(src, 'a', 'b', 'file.txt'), path.join(src, 'to-file')])
      expect([fs.lstatSync(p).uid, fs.lstatSync(p).gid]).toEqual([65534, 65534]);
    expect(fs.statSync(outsideFile).uid).toBe(0);
  });
});
