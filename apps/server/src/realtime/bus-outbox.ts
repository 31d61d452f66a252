import { LOG_BATCH_MS, isFinished, type WsMessage } from '@gantry/contracts';

export type UpdateFrame = Extract<WsMessage, { type: 'update' }>;

/** What the outbox asks the connection to send; `sent` once the database took the NOTIFY, `lost` when it did not. */
export type OutboxSend = (
  message: { kind: 'lines'; taskId: number; first: number; last: number } | { kind: 'update'; frame: UpdateFrame },
  sent: () => void,
  lost: () => void,
) => void;

/** One task's messages from this node: how far its stored lines were announced, and its latest update. */
interface Outgoing {
  /** The highest stored seq published here. */
  last: number;
  /** The highest seq of an announcement handed to the connection. */
  announced: number;
  /** The highest seq of an announcement the database took: NOTIFY is delivered once it commits. */
  confirmed: number;
  lastSent: number;
  timer?: NodeJS.Timeout;
  update?: UpdateFrame;
  updateConfirmed: boolean;
  touched: number;
}

/** An entry nothing is owed for and nothing happened to for this long is forgotten. */
const IDLE_MS = 10 * 60_000;

/**
 * What this node told the other nodes of its tasks, and what they may not have heard. A NOTIFY is
 * lost when the connection is down or drops before the database took it; every such loss is
 * remembered per task (lines after the last announcement the database took, an update it did not
 * take) and sent again once the connection is back, lines first, so no other node's watcher misses
 * a line or a final status because of an outage of this node's bus.
 */
export class BusOutbox {
  private readonly tasks = new Map<number, Outgoing>();
  private readonly owed = new Set<number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly send: OutboxSend,
    private readonly batchMs = LOG_BATCH_MS,
  ) {
    this.sweeper = setInterval(() => this.forgetIdle(), IDLE_MS / 4);
    this.sweeper.unref();
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const o of this.tasks.values()) clearTimeout(o.timer);
    this.tasks.clear();
    this.owed.clear();
  }

  /** Lines first..last of a task were stored: announced at most once per batch interval. */
  stored(taskId: number, first: number, last: number): void {
    const o = this.entry(taskId);
    // The first lines this entry hears of: what came before was announced by an entry since forgotten.
    if (o.last === 0) o.announced = o.confirmed = first - 1;
    o.last = Math.max(o.last, last);
    if (o.timer) return;
    const wait = o.lastSent + this.batchMs - Date.now();
    if (wait <= 0) this.announce(taskId);
    else o.timer = setTimeout(() => this.announce(taskId), wait);
  }

  /** Any message about the task: the lines stored before it are announced first. */
  flushLines(taskId: number): void {
    if (this.tasks.has(taskId)) this.announce(taskId);
  }

  /** A task's update: sent after its lines, and kept until the database took it. */
  update(frame: UpdateFrame): void {
    this.announce(frame.task_id);
    const o = this.entry(frame.task_id);
    o.update = frame;
    o.updateConfirmed = false;
    this.sendUpdate(frame.task_id, o);
  }

  /** The connection is back: everything the database did not take is sent again, each task's lines before its update. */
  resend(): void {
    const ids = [...this.owed];
    this.owed.clear();
    for (const id of ids) {
      const o = this.tasks.get(id);
      if (!o) continue;
      clearTimeout(o.timer);
      o.timer = undefined;
      if (o.last > o.confirmed) this.sendLines(id, o, o.confirmed + 1, o.last);
      if (o.update && !o.updateConfirmed) this.sendUpdate(id, o);
    }
  }

  /** Tasks with something not yet taken by the database (for tests and metrics). */
  get owedTasks(): number {
    return this.owed.size;
  }

  private entry(taskId: number): Outgoing {
    let o = this.tasks.get(taskId);
    if (!o) {
      o = { last: 0, announced: 0, confirmed: 0, lastSent: 0, updateConfirmed: true, touched: Date.now() };
      this.tasks.set(taskId, o);
    }
    o.touched = Date.now();
    return o;
  }

  private announce(taskId: number): void {
    const o = this.tasks.get(taskId);
    if (!o) return;
    clearTimeout(o.timer);
    o.timer = undefined;
    if (o.last <= o.announced) return;
    this.sendLines(taskId, o, o.announced + 1, o.last);
  }

  private sendLines(taskId: number, o: Outgoing, first: number, last: number): void {
    o.announced = Math.max(o.announced, last);
    o.lastSent = Date.now();
    this.send(
      { kind: 'lines', taskId, first, last },
      () => {
        o.confirmed = Math.max(o.confirmed, last);
        this.settle(taskId, o);
      },
      () => this.owed.add(taskId),
    );
  }

  private sendUpdate(taskId: number, o: Outgoing): void {
    const frame = o.update!;
    this.send(
      { kind: 'update', frame },
      () => {
        if (o.update === frame) o.updateConfirmed = true;
        this.settle(taskId, o);
      },
      () => this.owed.add(taskId),
    );
  }

  /** Forgets a task once the database took everything and its final update (or it only ever had updates from here). */
  private settle(taskId: number, o: Outgoing): void {
    if (this.tasks.get(taskId) !== o || o.timer || o.last > o.confirmed || !o.updateConfirmed) return;
    if ((o.update && isFinished(o.update.status)) || o.last === 0) {
      this.tasks.delete(taskId);
      this.owed.delete(taskId);
    }
  }

  /** Lines stored after a final update (a note about an outage) leave an entry no update settles. */
  private forgetIdle(): void {
    const before = Date.now() - IDLE_MS;
    for (const [id, o] of this.tasks) {
      if (o.touched < before && !o.timer && !this.owed.has(id) && o.last <= o.confirmed && o.updateConfirmed) this.tasks.delete(id);
    }
  }
}
