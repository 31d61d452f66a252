import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileThread } from './file-thread.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-hand-over-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

// Giving files to another user takes root; CI runs as root (a root server's tasks run as a task user).
describe.runIf(process.getuid?.() === 0)('handing a workspace over to the task user', () => {
  it('gives every entry, deep and wide, to the user, and changes nothing a link points at', async () => {
    const ws = path.join(root, 'ws');
    for (let d = 0; d < 20; d++) {
      fs.mkdirSync(path.join(ws, `d${d}`, 'deeper'), { recursive: true });
      for (let f = 0; f < 20; f++) fs.writeFileSync(path.join(ws, `d${d}`, `f${f}`), 'x');
      fs.writeFileSync(path.join(ws, `d${d}`, 'deeper', 'g'), 'y');
    }
    const outside = path.join(root, 'outside');
    fs.writeFileSync(outside, 'root keeps this');
    fs.mkdirSync(path.join(root, 'outside-dir'));
    fs.symlinkSync(outside, path.join(ws, 'd0', 'link'));
    fs.symlinkSync(path.join(root, 'outside-dir'), path.join(ws, 'd1', 'dir-link'));
    await fileThread.handOver(ws, 65534, 65534);
    const owners = new Set<string>();
    const walk = (p: string) => {
      const st = fs.lstatSync(p);
      owners.add(`${st.uid}:${st.gid}`);
      if (st.isDirectory()) for (const n of fs.readdirSync(p)) walk(path.join(p, n));
    };
    walk(ws);
    expect([...owners]).toEqual(['65534:65534']);
    expect(fs.statSync(outside).uid).toBe(0);
    expect(fs.statSync(path.join(root, 'outside-dir')).uid).toBe(0);
  });
});
