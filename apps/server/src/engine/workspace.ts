import fs from 'node:fs';
import path from 'node:path';
import { makeWorkspace } from '../../sandbox/file-ops.mjs';
import { fileThread } from './file-thread.js';
import type { TaskIdentity } from './task-user.js';

export { removeSmallTree } from '../../sandbox/file-ops.mjs';

/**
 * A task's private working directory (0700) and the files it needs for that run only: keys,
 * password files, inventories. Everything is removed by `dispose`, whatever the outcome.
 */
export class Workspace {
  readonly dir: string;
  readonly home: string;
  readonly secretsDir: string;

  /**
   * `id`: a task id (folder task_<id>) or another unique name. `owner`: the task user of a root
   * server, who owns the workspace and every file the server writes into it.
   */
  constructor(
    root: string,
    id: number | string,
    readonly owner: TaskIdentity | null = null,
    /** Set by `create`, which has made the folders already. */
    made = false,
  ) {
    this.dir = path.join(root, typeof id === 'number' ? `task_${id}` : id);
    this.home = path.join(this.dir, 'home');
    this.secretsDir = path.join(this.dir, 'secrets');
    if (!made) makeWorkspace(root, [this.dir, this.home, this.secretsDir], owner);
  }

  /** The same set-up off the event loop, for the task runs (many at once): one message to the file thread. */
  static async create(root: string, id: number | string, owner: TaskIdentity | null = null): Promise<Workspace> {
    const ws = new Workspace(root, id, owner, true);
    await fileThread.makeWorkspace(root, [ws.dir, ws.home, ws.secretsDir], owner);
    return ws;
  }

  /**
   * Writes a file readable only by the task's user; key material ends with a newline as ssh
   * wants. Only before any task process ran: a fresh name (O_EXCL), never through a link.
   */
  writeSecretFile(name: string, content: string, mode = 0o600): string {
    const file = path.join(this.secretsDir, name);
    fs.rmSync(file, { force: true });
    const fd = fs.openSync(
      file,
      fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
      mode,
    );
    try {
      fs.writeFileSync(fd, content);
      fs.fchmodSync(fd, mode);
      if (this.owner) fs.fchownSync(fd, this.owner.uid, this.owner.gid);
    } finally {
      fs.closeSync(fd);
    }
    return file;
  }

  /** Gives everything in the workspace (checkouts included) to the task user, following no link. */
  async handOver(): Promise<void> {
    if (this.owner) await fileThread.handOver(this.dir, this.owner.uid, this.owner.gid);
  }

  path(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  dispose(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * `dispose` off the event loop: most runs' workspaces in one message to the file thread, which
   * costs far less than the many steps of a removal through libuv's pool; a big one that way.
   */
  async remove(): Promise<void> {
    if (await fileThread.removeSmallTree(this.dir, SYNC_REMOVE_MAX_ENTRIES)) return;
    await fs.promises.rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * Workspaces of up to this many files, folders and links are removed in one go on the file
 * thread; a bigger one step by step off the loop, so the file thread stays free for other runs.
 */
const SYNC_REMOVE_MAX_ENTRIES = 2000;

import type { TaskWorkspaceStore } from './ports.js';

export type { TaskWorkspaceStore };

export function taskWorkspaceStore(root: string): TaskWorkspaceStore {
  return {
    taskIds: () => {
      let names: string[];
      try {
        names = fs.readdirSync(root);
      } catch {
        return [];
      }
      return names.flatMap((n) => {
        const m = /^task_(\d+)$/.exec(n);
        return m ? [Number(m[1])] : [];
      });
    },
    remove: (taskId) => fs.rmSync(path.join(root, `task_${taskId}`), { recursive: true, force: true }),
  };
}
