/** How the node reaches one of its runs from outside it (a drain, a fence). */
export interface RunHandle {
  /** Gantry's own line in the run's log. */
  note(line: string): void;
  /** SIGTERM (`stop`, a script's trap runs) or SIGKILL (`kill`) to the run's processes. */
  control(action: 'stop' | 'kill'): void;
}

interface Entry {
  handle: RunHandle | null;
  /** Set by the dispatcher: the run's whole life, final status and notifications included. */
  done: Promise<void> | null;
  /** Its final status is stored, by this run: lines after it are the run's own epilogue. */
  finalized: boolean;
  /** The database says it is no longer this node's (failed when the node was declared dead). */
  lost: boolean;
  /** A signal sent before the run attached (it was still loading): given to it when it does. */
  pending: { action: 'stop' | 'kill'; line?: string } | null;
}

/**
 * The runs this server process holds now: the dispatcher tracks each from its claim to its end,
 * the run attaches a handle once it started, and the drain and the fence act on them through it.
 * Whether a run still owns its task is the database's word (see fencing.ts); this only keeps it.
 */
export class LocalRuns {
  private readonly runs = new Map<number, Entry>();
  private idleWaiters: Array<() => void> = [];

  get size(): number {
    return this.runs.size;
  }

  ids(): number[] {
    return [...this.runs.keys()];
  }

  has(taskId: number): boolean {
    return this.runs.has(taskId);
  }

  /** The dispatcher claimed the task and runs it until `done` settles. */
  track(taskId: number, done: Promise<void>): void {
    const entry = this.entry(taskId);
    entry.done = done;
    void done.finally(() => this.forget(taskId));
  }

  /** The run can be reached now; answers its detach (called when the run ends). */
  attach(taskId: number, handle: RunHandle): () => void {
    const entry = this.entry(taskId);
    entry.handle = handle;
    if (entry.lost) handle.control('kill');
    else if (entry.pending) this.signal(taskId, entry.pending.action, entry.pending.line);
    entry.pending = null;
    return () => {
      entry.handle = null;
      // A run started without the dispatcher (a test) leaves nothing behind.
      if (!entry.done) this.forget(taskId);
    };
  }

  markFinalized(taskId: number): void {
    const e = this.runs.get(taskId);
    if (e) e.finalized = true;
  }

  isFinalized(taskId: number): boolean {
    return this.runs.get(taskId)?.finalized ?? false;
  }

  /**
   * The task is no longer this node's: its processes are killed at once, and the run, which ends
   * soon, stores and announces nothing more (its lines are refused, its notifications skipped).
   */
  lose(taskId: number): void {
    const e = this.runs.get(taskId);
    if (!e || e.finalized) return;
    e.lost = true;
    e.handle?.control('kill');
  }

  isLost(taskId: number): boolean {
    return this.runs.get(taskId)?.lost ?? false;
  }

  /**
   * SIGKILL for a run whose task the database no longer holds as this node's (the cluster's
   * fence), unless the run stored its own final status meanwhile: then it is only ending.
   */
  kill(taskId: number, line?: string): void {
    if (!this.isFinalized(taskId)) this.signal(taskId, 'kill', line);
  }

  /** A line in the run's log, then the signal; a run still loading gets both when it attaches. */
  signal(taskId: number, action: 'stop' | 'kill', line?: string): void {
    const e = this.runs.get(taskId);
    if (!e) return;
    if (!e.handle) {
      e.pending = { action, line };
      return;
    }
    if (line) e.handle.note(line);
    e.handle.control(action);
  }

  /** Settles once no run is left (at once when none is running). */
  whenIdle(): Promise<void> {
    if (this.runs.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private entry(taskId: number): Entry {
    let e = this.runs.get(taskId);
    if (!e) {
      e = { handle: null, done: null, finalized: false, lost: false, pending: null };
      this.runs.set(taskId, e);
    }
    return e;
  }

  private forget(taskId: number): void {
    this.runs.delete(taskId);
    if (this.runs.size > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
