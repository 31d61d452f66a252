import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeSmallTree, Workspace } from './workspace.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-ws-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A tree a run could leave: nested folders, files, and links to a file and a folder outside it. */
function tree(name: string, files: number): { dir: string; outside: string } {
  const dir = path.join(root, name);
  const outside = path.join(root, `${name}-outside`);
  fs.mkdirSync(path.join(outside, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'keep.txt'), 'keep\n');
  fs.mkdirSync(path.join(dir, 'a/b/c'), { recursive: true });
  for (let i = 0; i < files; i++) fs.writeFileSync(path.join(dir, 'a/b', `f${i}`), `${i}\n`);
  fs.symlinkSync(path.join(outside, 'keep.txt'), path.join(dir, 'a/b/c/file-link'));
  fs.symlinkSync(outside, path.join(dir, 'dir-link'));
  return { dir, outside };
}

describe('workspace removal', () => {
  it('removes a small tree at once, links as links: what they point to stays', () => {
    const { dir, outside } = tree('small', 10);
    expect(removeSmallTree(dir, 300)).toBe(true);
    expect(fs.existsSync(dir)).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('keep\n');
    expect(fs.existsSync(path.join(outside, 'sub'))).toBe(true);
  });

  it('leaves a tree over the bound untouched for the removal off the loop, which then removes it', async () => {
    const { dir, outside } = tree('big', 50);
    expect(removeSmallTree(dir, 20)).toBe(false);
    expect(fs.readdirSync(path.join(dir, 'a/b'))).toHaveLength(51);
    const ws = new Workspace(root, 'unused');
    // The same removal a run's workspace gets, here for a folder past the bound of a run's.
    Object.defineProperty(ws, 'dir', { value: dir });
    for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(dir, `more${i}`), '');
    await ws.remove();
    expect(fs.existsSync(dir)).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('keep\n');
  });

  it('answers true for a folder already gone', () => {
    expect(removeSmallTree(path.join(root, 'never-made'), 300)).toBe(true);
  });
});
