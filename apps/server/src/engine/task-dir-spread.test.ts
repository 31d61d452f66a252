import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProcessLauncher, type ProcessLauncher } from './process.js';
import { spreadTaskFolders } from './task-dir-spread.js';

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-spread-test-')));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const systemPath = process.env.PATH ?? '/usr/bin:/bin';

/** The real launcher, keeping what it was asked to start. */
function recording(): {
  launcher: ProcessLauncher;
  started: Array<{ command: string; args: string[]; sandboxed: boolean }>;
} {
  const real = createProcessLauncher({ active: false, wrap: (s) => s });
  const started: Array<{ command: string; args: string[]; sandboxed: boolean }> = [];
  return {
    started,
    launcher: {
      start: (spec, onLine, flow) => (
        started.push({ command: spec.command, args: spec.args, sandboxed: !!spec.sandbox }),
        real.start(spec, onLine, flow)
      ),
    },
  };
}

/** The ext2/3/4 attribute letters of `p` (lsattr -d), or null where the file system has none. */
function attributes(p: string): string | null {
  try {
    return (
      execFileSync('lsattr', ['-d', p], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .split(/\s+/)[0] ?? ''
    );
  } catch {
    return null;
  }
}

const fsType = (p: string) => execFileSync('stat', ['-f', '-c', '%T', p]).toString().trim();

describe('task folder spreading', () => {
  it('makes the root (0700) and marks it a top directory on ext2/3/4, through the launcher as a helper; its folders are not marked', async () => {
    const dir = path.join(root, 'tasks');
    const { launcher, started } = recording();
    const marked = await spreadTaskFolders(launcher, dir, systemPath);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(started).toEqual([{ command: 'chattr', args: ['+T', dir], sandboxed: false }]);
    if (fsType(dir) === 'ext2/ext3') {
      expect(marked).toBe(true);
      expect(attributes(dir)).toContain('T');
      // The flag is not inherited: a task folder's own folders stay near it.
      fs.mkdirSync(path.join(dir, 'task_1'));
      expect(attributes(path.join(dir, 'task_1'))).not.toContain('T');
    } else {
      // tmpfs, XFS, overlay...: no such flag; the server goes on.
      expect(marked).toBe(false);
    }
  });

  it('is idempotent and answers false, without throwing, where it cannot mark', async () => {
    const dir = path.join(root, 'again');
    const { launcher } = recording();
    const first = await spreadTaskFolders(launcher, dir, systemPath);
    expect(await spreadTaskFolders(launcher, dir, systemPath)).toBe(first);
    // No chattr on PATH: not marked, no error.
    expect(await spreadTaskFolders(launcher, path.join(root, 'nochattr'), path.join(root, 'empty-bin'))).toBe(false);
    // /proc's folders take no such flag.
    expect(await spreadTaskFolders(launcher, '/proc/self', systemPath)).toBe(false);
  });
});
