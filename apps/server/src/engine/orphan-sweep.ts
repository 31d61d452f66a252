/** What the sweep needs of the task table: this node's tasks that look active, and a way to fail them. */
export interface OrphanSweepStore {
  /** Tasks the database holds as active on this node (never another node's, never a remote runner's). */
  activeOnThisNode(): Promise<Array<{ id: number; status: string }>>;
  /** Fails these tasks (each from the status given, only while still this node's), with a line saying why; answers how many. */
  failUnheld(tasks: Array<{ id: number; status: string }>): Promise<number>;
}

export const ORPHAN_SWEEP_MS = 30_000;

/**
 * Fails the tasks the database says this node is running but that no live run of this process
 * holds: a run whose start failed before it was tracked, a final write lost for good, a process
 * state gone wrong. The in-memory set of live runs is the truth. A task must be found unheld by
 * two sweeps in a row, so one claimed a moment ago (in the database, not yet in the set) is left
 * alone. At start-up `failOrphans` does the same for what the previous process left.
 */
export class OrphanSweep {
  private suspects = new Set<number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: OrphanSweepStore,
    private readonly isLive: (taskId: number) => boolean,
    private readonly intervalMs = ORPHAN_SWEEP_MS,
  ) {}

  /** One pass; answers how many tasks it failed. Public so tests drive it without waiting. */
  async sweep(): Promise<number> {
    const unheld = (await this.store.activeOnThisNode()).filter((t) => !this.isLive(t.id));
    const confirmed = unheld.filter((t) => this.suspects.has(t.id));
    this.suspects = new Set(unheld.map((t) => t.id));
    // Checked again just before: a run may have picked the task up while the list was read.
    const stillUnheld = confirmed.filter((t) => !this.isLive(t.id));
    return stillUnheld.length ? this.store.failUnheld(stillUnheld) : 0;
  }

  start(onError: (e: unknown) => void): void {
    this.stop();
    this.timer = setInterval(() => void this.sweep().catch(onError), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
