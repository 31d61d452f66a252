import fs from 'node:fs';
import path from 'node:path';

/**
 * A task's private working directory (0700) and the files it needs for that run only: keys,
 * password files, inventories. Everything is removed by `dispose`, whatever the outcome.
 */
export class Workspace {
  readonly dir: string;
  readonly home: string;
  readonly secretsDir: string;

  /** `id`: a task id (folder task_<id>) or another unique name. */
  constructor(root: string, id: number | string) {
    fs.mkdirSync(root, { recursive: true, mode: 0o700 });
    this.dir = path.join(root, typeof id === 'number' ? `task_${id}` : id);
    fs.rmSync(this.dir, { recursive: true, force: true });
    fs.mkdirSync(this.dir, { mode: 0o700 });
    this.home = path.join(this.dir, 'home');
    this.secretsDir = path.join(this.dir, 'secrets');
    fs.mkdirSync(this.home, { mode: 0o700 });
    fs.mkdirSync(this.secretsDir, { mode: 0o700 });
  }

  /** Writes a file readable only by this user; key material ends with a newline as ssh wants. */
  writeSecretFile(name: string, content: string, mode = 0o600): string {
    const file = path.join(this.secretsDir, name);
    fs.writeFileSync(file, content, { mode });
    fs.chmodSync(file, mode);
    return file;
  }

  path(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  dispose(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
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
