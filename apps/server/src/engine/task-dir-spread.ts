import fs from 'node:fs';
import path from 'node:path';
import type { ProcessLauncher } from './process.js';

/**
 * Marks the task folder's root as a "top directory" for ext2/3/4 (`chattr +T`): the kernel then
 * places each folder made in it (`task_<id>`, `inventory_<uuid>`) in a block group of its own
 * choosing, as it does for the file system's top-level folders, and a task's files follow their
 * folder.
 *
 * Why: every task makes and removes a checkout (~30 inodes). ext4 does not hand out an inode freed
 * in the last minutes, and finding a free one walks past each such inode of the group, one buffer
 * lookup each. With every task folder in the root's group that walk grows with the churn, so a
 * flood of tasks slows itself down (bench/task-throughput.mjs, 500 tasks: 26 tasks/s unmarked,
 * 40–42 marked). Spread over the file system's groups, each group holds few.
 *
 * Best effort: other file systems (tmpfs, XFS, btrfs, overlay) have no such flag and chattr says
 * so; `chattr` runs through the engine's launcher as a helper (no user input: the root is the
 * server's own, absolute, configured folder). Answers whether the flag is set.
 */
export async function spreadTaskFolders(launcher: ProcessLauncher, root: string, systemPath: string): Promise<boolean> {
  const dir = path.resolve(root);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    const r = await launcher.start(
      { command: 'chattr', args: ['+T', dir], cwd: dir, env: { PATH: systemPath } },
      () => undefined,
    ).done;
    return r.code === 0;
  } catch {
    return false;
  }
}
