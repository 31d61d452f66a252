import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import * as ops from '../../sandbox/file-ops.mjs';

type Ops = typeof ops;
type Op = keyof Ops;

interface Reply {
  id: number;
  value?: unknown;
  error?: { message: string; code?: string };
}

interface Pending {
  op: Op;
  args: unknown[];
  resolve(value: unknown): void;
  reject(e: Error): void;
}

const SCRIPT = fileURLToPath(new URL('../../sandbox/file-thread.mjs', import.meta.url));

/**
 * The workspace file work of runs (make a workspace, copy a kept checkout into it, hand it to
 * the task user, remove it) done on one worker thread with synchronous calls, so the server's
 * thread spends one message per operation instead of a step per file, and none of its time on
 * the files themselves. When the thread cannot start or dies, the work is done on the calling
 * thread, as it was before there was one; a later call starts a new thread.
 */
export class FileThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private readonly waiting = new Set<Promise<unknown>>();
  private nextId = 1;

  makeWorkspace(root: string, dirs: string[], owner: { uid: number; gid: number } | null): Promise<void> {
    return this.call('makeWorkspace', [root, dirs, owner ? { uid: owner.uid, gid: owner.gid } : null]) as Promise<void>;
  }

  copyTree(src: string, dst: string): Promise<number> {
    return this.call('copyTree', [src, dst]) as Promise<number>;
  }

  removeSmallTree(dir: string, max: number): Promise<boolean> {
    return this.call('removeSmallTree', [dir, max]) as Promise<boolean>;
  }

  handOver(dir: string, uid: number, gid: number): Promise<void> {
    return this.call('handOver', [dir, uid, gid]) as Promise<void>;
  }

  /** Whether a thread is up (a later call starts one when not). */
  get started(): boolean {
    return this.worker !== null;
  }

  /** Ends the thread once what it was asked is done (tests, shutdown). */
  async close(): Promise<void> {
    const w = this.worker;
    if (!w) return;
    await Promise.allSettled([...this.waiting]);
    if (this.worker === w) this.worker = null;
    await w.terminate();
  }

  private call(op: Op, args: unknown[]): Promise<unknown> {
    const worker = this.thread();
    if (!worker) return Promise.resolve().then(() => inThread(op, args));
    const id = this.nextId++;
    const answer = new Promise((resolve, reject) => {
      this.pending.set(id, { op, args, resolve, reject });
      // Held only while there is work: an idle thread keeps no process alive.
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, op, args });
    });
    this.waiting.add(answer);
    const done = () => this.waiting.delete(answer);
    answer.then(done, done);
    return answer;
  }

  private thread(): Worker | null {
    if (this.worker) return this.worker;
    let w: Worker;
    try {
      w = new Worker(SCRIPT);
    } catch {
      return null;
    }
    w.unref();
    w.on('message', (m: Reply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0) w.unref();
      if (m.error) p.reject(Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {}));
      else p.resolve(m.value);
    });
    const lost = () => {
      if (this.worker !== w) return;
      this.worker = null;
      this.failPending();
    };
    w.on('error', lost);
    w.on('exit', lost);
    this.worker = w;
    return w;
  }

  /**
   * What a lost thread had not answered is done here, in the order it was asked. It may have done
   * part of it: a removal or a hand-over is simply finished, a copy fails (its target exists) and
   * its caller clones instead.
   */
  private failPending(): void {
    const left = [...this.pending.values()];
    this.pending.clear();
    for (const p of left) {
      try {
        p.resolve(inThread(p.op, p.args));
      } catch (e) {
        p.reject(e as Error);
      }
    }
  }
}

function inThread(op: Op, args: unknown[]): unknown {
  return (ops[op] as (...a: unknown[]) => unknown)(...args);
}

/** The server's one file thread, shared by every run of this process. */
export const fileThread = new FileThread();
