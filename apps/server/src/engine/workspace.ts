import fs from 'node:fs';
import path from 'node:path';
import { handOver, type TaskIdentity } from './task-user.js';

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
    if (made) return;
    fs.mkdirSync(root, { recursive: true, mode: 0o700 });
    // The task user may pass through (never list) the task folder to reach its own workspace.
    if (owner) fs.chmodSync(root, 0o711);
    fs.rmSync(this.dir, { recursive: true, force: true });
    for (const d of [this.dir, this.home, this.secretsDir]) fs.mkdirSync(d, { mode: 0o700 });
    if (owner) for (const d of [this.dir, this.home, this.secretsDir]) fs.chownSync(d, owner.uid, owner.gid);
  }

  /** The same set-up off the event loop, for the task runs (many at once). */
  static async create(root: string, id: number | string, owner: TaskIdentity | null = null): Promise<Workspace> {
    const ws = new Workspace(root, id, owner, true);
    const p = fs.promises;
    await p.mkdir(root, { recursive: true, mode: 0o700 });
    if (owner) await p.chmod(root, 0o711);
    await p.rm(ws.dir, { recursive: true, force: true });
    for (const d of [ws.dir, ws.home, ws.secretsDir]) await p.mkdir(d, { mode: 0o700 });
    if (owner) for (const d of [ws.dir, ws.home, ws.secretsDir]) await p.chown(d, owner.uid, owner.gid);
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
  handOver(): void {
    if (this.owner) handOver(this.dir, this.owner);
  }

  path(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  dispose(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * `dispose` off the event loop for a big workspace, whose files would hold up every request
   * meanwhile; a small one (most runs') goes at once, which costs far less than the many steps
   * of a removal off the loop.
   */
  async remove(): Promise<void> {
    if (removeSmallTree(this.dir, SYNC_REMOVE_MAX_ENTRIES)) return;
    await fs.promises.rm(this.dir, { recursive: true, force: true });
  }
}

/** Workspaces of up to this many files, folders and links are removed in one go. */
const SYNC_REMOVE_MAX_ENTRIES = 300;

/**
 * Removes `dir` in one go when it holds at most `max` entries, answering true; answers false,
 * having removed nothing, when it holds more or a step fails (the caller removes it off the loop).
 * Lists with the entries' own types, so a link is removed as a link and never followed.
 */
export function removeSmallTree(dir: string, max: number): boolean {
  const files: string[] = [];
  const dirs: string[] = [];
  try {
    const walk = (d: string): boolean => {
      dirs.push(d);
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        if (files.length + dirs.length > max) return false;
        const p = path.join(d, e.name);
        if (e.isDirectory()) {
          if (!walk(p)) return false;
        } else files.push(p);
      }
      return true;
    };
    if (!walk(dir)) return false;
    for (const f of files) fs.unlinkSync(f);
    // Deepest first: each folder is empty by the time it goes.
    for (let i = dirs.length - 1; i >= 0; i--) fs.rmdirSync(dirs[i]!);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' && !fs.existsSync(dir);
  }
}

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
