import { storedControl, type EventBus, type TaskControl, type TaskFacts } from './bus.js';

export interface StoredControlsOptions {
  bus: EventBus;
  /** The tasks this node runs now. */
  runningIds(): Iterable<number>;
  readTask(taskId: number): Promise<TaskFacts | null | undefined>;
  /** How often the rows are read while the bus is away (default 500 ms). */
  everyMs?: number;
}

/**
 * Stop, kill, confirm and reject requests for this node's tasks that the bus could not bring.
 * The request stores the task's new state before it tells the node running it, so while the bus is
 * away (its NOTIFYs go nowhere) this node reads its running tasks' rows itself: every `everyMs` and
 * once more the moment the bus is back (and again while a row could not be read). A stop made meanwhile on another node thus takes effect
 * as soon as this node can read the database, whether or not the bus has reconnected yet.
 */
export class StoredControls {
  private readonly timer: NodeJS.Timeout;
  private readonly offs: Array<() => void>;
  /** What each running task was last told (from the bus or from here), so a request is acted on once. */
  private readonly told = new Map<number, TaskControl['action']>();
  /** A row could not be read at the last check: read again at the next tick, connected or not. */
  private incomplete = false;
  private current: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(private readonly o: StoredControlsOptions) {
    this.offs = [
      o.bus.onControl((c) => {
        if ([...o.runningIds()].includes(c.taskId)) this.told.set(c.taskId, c.action);
      }),
      o.bus.onReconnect(() => void this.check()),
    ];
    this.timer = setInterval(() => {
      if (!o.bus.isConnected() || this.incomplete) void this.check();
    }, o.everyMs ?? 500);
    this.timer.unref();
    o.bus.onClose(() => this.close());
  }

  close(): void {
    clearInterval(this.timer);
    for (const off of this.offs) off();
  }

  /**
   * Reads each running task's row and signals what it asks for and was not told yet; resolves when
   * done. Asked while a read is out (it may have started before the database was back): once more after it.
   */
  check(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.current) {
      this.current = this.readRows().finally(() => (this.current = null));
      return this.current;
    }
    this.queued = this.current.then(() => {
      this.queued = null;
      return this.check();
    });
    return this.queued;
  }

  private async readRows(): Promise<void> {
    const running = new Set(this.o.runningIds());
    for (const id of this.told.keys()) if (!running.has(id)) this.told.delete(id);
    this.incomplete = false;
    for (const id of running) {
      const task = await this.o.readTask(id).catch(() => {
        this.incomplete = true;
        return undefined;
      });
      const action = task ? storedControl(task) : null;
      if (action && this.told.get(id) !== action) this.o.bus.control({ taskId: id, action });
    }
  }
}
