import { FINISHED_STATUSES, LOG_BATCH_MS, type WsMessage } from '@gantry/contracts';
import pg from 'pg';
import type { LogLine } from '../engine/ports.js';
import { EventBus, type LogBatch, type TaskControl } from './bus.js';

/** The one channel every node listens on. */
export const BUS_CHANNEL = 'gantry_bus';
/** PostgreSQL refuses NOTIFY payloads of 8,000 bytes and more. */
const MAX_PAYLOAD = 7900;
const READ_PAGE = 5000;

/** What travels in a NOTIFY: always the sender's node id, then one kind of event. */
type Envelope =
  | { n: string; k: 'ws'; m: WsMessage }
  | { n: string; k: 'lines'; p: number; t: number; f: number; s: number }
  | { n: string; k: 'control'; c: TaskControl }
  | { n: string; k: 'user'; u: number }
  | { n: string; k: 'kick' };

export interface PgBusOptions {
  url: string;
  nodeId: string;
  /** Stored lines of a task, seq from..to inclusive, ascending (at most `limit`). */
  readLines(taskId: number, fromSeq: number, toSeq: number, limit: number): Promise<LogLine[]>;
  /** Where a failure of the bus connection is told (never throws). */
  onError?(message: string): void;
  /** Backoff between reconnection attempts, doubling up to maxBackoffMs. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

interface LineAnnouncement {
  projectId: number;
  first: number;
  last: number;
  lastSent: number;
  timer?: NodeJS.Timeout;
}

/**
 * The event bus across nodes on one PostgreSQL database: everything published here is emitted
 * in this process (as the in-process bus does) and sent with NOTIFY on one dedicated connection;
 * what other nodes send arrives by LISTEN on the same connection and is emitted here. Sending and
 * listening share the connection so a node's events reach the others in the order it sent them.
 *
 * Log lines are not sent (NOTIFY payloads are small): a node says "task T has lines f..s", at most
 * once per LOG_BATCH_MS per task, and a node where someone watches T reads those lines from the
 * table. A task's events from another node are handled in order: an update waits for the line
 * reads announced before it, so a console never sees a final status before the last lines.
 *
 * When the connection drops, the bus reconnects with backoff and then tells its `onReconnect`
 * listeners, who re-read what they may have missed (the dispatcher's queue, stop requests).
 */
export class PgEventBus extends EventBus {
  private client: pg.Client | null = null;
  private connected = false;
  private closed = false;
  private backoff: number;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly announcements = new Map<number, LineAnnouncement>();
  /** Per task from other nodes: the last line emitted here, and the chain its events wait in. */
  private readonly cursors = new Map<number, number>();
  private readonly chains = new Map<number, Promise<void>>();
  private readonly reconnectListeners = new Set<() => void>();
  private hadConnection = false;

  constructor(private readonly o: PgBusOptions) {
    super();
    this.backoff = o.minBackoffMs ?? 250;
  }

  /** Opens the listening connection; resolves once it listens (or rejects on the first failure). */
  async start(): Promise<void> {
    try {
      await this.connect();
    } catch (e) {
      this.scheduleReconnect();
      throw e;
    }
  }

  override isConnected(): boolean {
    return this.connected;
  }

  override onReconnect(fn: () => void): () => void {
    this.reconnectListeners.add(fn);
    return () => this.reconnectListeners.delete(fn);
  }

  override async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    for (const a of this.announcements.values()) clearTimeout(a.timer);
    this.announcements.clear();
    const c = this.client;
    this.client = null;
    this.connected = false;
    await c?.end().catch(() => undefined);
  }

  override publish(message: WsMessage): void {
    super.publish(message);
    // Lines announced for this task go first: other nodes read them before showing the update.
    if ('task_id' in message) this.announceNow(message.task_id);
    if (message.type === 'update') this.send({ n: this.o.nodeId, k: 'ws', m: message });
    if (message.type === 'update' && FINISHED_STATUSES.includes(message.status as never)) this.announcements.delete(message.task_id);
  }

  override publishLines(batch: LogBatch): void {
    super.publishLines(batch);
    if (batch.lines.length === 0) return;
    const first = batch.lines[0]!.seq;
    const last = batch.lines[batch.lines.length - 1]!.seq;
    let a = this.announcements.get(batch.task_id);
    if (!a) {
      a = { projectId: batch.project_id, first, last, lastSent: 0 };
      this.announcements.set(batch.task_id, a);
    } else {
      if (a.first === 0) a.first = first;
      a.last = last;
    }
    if (a.timer) return;
    const wait = a.lastSent + LOG_BATCH_MS - Date.now();
    if (wait <= 0) this.announceNow(batch.task_id);
    else a.timer = setTimeout(() => this.announceNow(batch.task_id), wait);
  }

  override control(signal: TaskControl): void {
    super.control(signal);
    this.send({ n: this.o.nodeId, k: 'control', c: signal });
  }

  override userChanged(userId: number): void {
    super.userChanged(userId);
    this.send({ n: this.o.nodeId, k: 'user', u: userId });
  }

  override kick(): void {
    super.kick();
    this.send({ n: this.o.nodeId, k: 'kick' });
  }

  private announceNow(taskId: number): void {
    const a = this.announcements.get(taskId);
    if (!a) return;
    clearTimeout(a.timer);
    a.timer = undefined;
    if (a.first === 0) return;
    this.send({ n: this.o.nodeId, k: 'lines', p: a.projectId, t: taskId, f: a.first, s: a.last });
    a.first = 0;
    a.lastSent = Date.now();
  }

  private send(e: Envelope): void {
    const payload = JSON.stringify(e);
    if (Buffer.byteLength(payload) > MAX_PAYLOAD) {
      this.o.onError?.(`bus: a ${e.k} event was too large to send to the other nodes`);
      return;
    }
    const c = this.client;
    if (!c || !this.connected) return;
    c.query('SELECT pg_notify($1, $2)', [BUS_CHANNEL, payload]).catch(() => undefined);
  }

  private async connect(): Promise<void> {
    // Named, so an operator (or a test) can find the bus connection in pg_stat_activity.
    const c = new pg.Client({ connectionString: this.o.url, application_name: `gantry-bus ${this.o.nodeId}` });
    c.on('error', () => this.lost(c));
    c.on('end', () => this.lost(c));
    c.on('notification', (n) => {
      if (n.channel === BUS_CHANNEL && n.payload) this.receive(n.payload);
    });
    await c.connect();
    await c.query(`LISTEN ${BUS_CHANNEL}`);
    if (this.closed) {
      await c.end().catch(() => undefined);
      return;
    }
    this.client = c;
    this.connected = true;
    this.backoff = this.o.minBackoffMs ?? 250;
    if (this.hadConnection) for (const fn of this.reconnectListeners) fn();
    this.hadConnection = true;
  }

  private lost(c: pg.Client): void {
    if (this.client !== c) return;
    this.client = null;
    this.connected = false;
    c.end().catch(() => undefined);
    if (this.closed) return;
    this.o.onError?.('bus: the connection to PostgreSQL was lost; reconnecting');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    const wait = this.backoff;
    this.backoff = Math.min(this.backoff * 2, this.o.maxBackoffMs ?? 10_000);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect().catch(() => this.scheduleReconnect());
    }, wait);
    this.reconnectTimer.unref();
  }

  private receive(payload: string): void {
    let e: Envelope;
    try {
      e = JSON.parse(payload) as Envelope;
    } catch {
      return;
    }
    if (e.n === this.o.nodeId) return;
    switch (e.k) {
      case 'ws': {
        const m = e.m;
        if ('task_id' in m) this.inOrder(m.task_id, async () => {
          super.publish(m);
          if (m.type === 'update' && FINISHED_STATUSES.includes(m.status as never)) this.cursors.delete(m.task_id);
        });
        else super.publish(m);
        return;
      }
      case 'lines':
        this.inOrder(e.t, () => this.readAnnounced(e.p, e.t, e.f, e.s));
        return;
      case 'control':
        super.control(e.c);
        return;
      case 'user':
        super.userChanged(e.u);
        return;
      case 'kick':
        super.kick();
        return;
    }
  }

  /** Runs `fn` after every earlier event of the task from other nodes. */
  private inOrder(taskId: number, fn: () => Promise<void>): void {
    const next = (this.chains.get(taskId) ?? Promise.resolve()).then(fn).catch((err: unknown) => this.o.onError?.(`bus: ${(err as Error).message}`));
    this.chains.set(taskId, next);
    void next.then(() => {
      if (this.chains.get(taskId) === next) this.chains.delete(taskId);
    });
  }

  private async readAnnounced(projectId: number, taskId: number, first: number, last: number): Promise<void> {
    const cursor = this.cursors.get(taskId);
    let from = cursor === undefined ? first : Math.max(cursor + 1, first);
    this.cursors.set(taskId, Math.max(cursor ?? 0, last));
    // Nobody here watches the task: nothing to read (a later watcher loads the stored log).
    if (!this.wantsLines(taskId)) return;
    while (from <= last) {
      const lines = await this.o.readLines(taskId, from, last, READ_PAGE);
      if (lines.length === 0) return;
      super.publishLines({ project_id: projectId, task_id: taskId, lines });
      from = lines[lines.length - 1]!.seq + 1;
    }
  }
}
