import type { WsMessage } from '@gantry/contracts';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { LogLine } from '../engine/ports.js';
import { EventBus, storedControl, type LogBatch, type TaskControl, type TaskFacts } from './bus.js';
import { ReplayGuard, openFromBus, openMessage, sealForBus, signMessage, type BusDropReason, type BusKeys } from './bus-auth.js';
import { BusInbox } from './bus-inbox.js';
import { BusOutbox, type OutboxSend, type UpdateFrame } from './bus-outbox.js';

/** The one channel every node listens on. */
export const BUS_CHANNEL = 'gantry_bus';
/** PostgreSQL refuses NOTIFY payloads of 8,000 bytes and more. */
const MAX_PAYLOAD = 7900;

/**
 * The body of a signed bus message (bus-auth.ts): ids and kinds only, so a node reads what it acts
 * on from the database. An update's frame carries more (status, times, version): it is encrypted.
 */
type Body =
  | { k: 'ws'; x: string }
  | { k: 'lines'; t: number; f: number; s: number }
  | { k: 'control'; t: number }
  | { k: 'user'; u: number }
  | { k: 'kick' };

export interface PgBusOptions {
  url: string;
  nodeId: string;
  /** Derived from the master key (deriveBusKeys): signs what this node sends, checks what it receives. */
  keys: BusKeys;
  /** Stored lines of a task, seq from..to inclusive, ascending (at most `limit`). */
  readLines(taskId: number, fromSeq: number, toSeq: number, limit: number): Promise<LogLine[]>;
  /** A task's row as stored now: its project and whether a stop, confirm or reject was requested. */
  readTask(taskId: number): Promise<TaskFacts | null | undefined>;
  /** The highest stored seq of a task's log (where a watcher that heard nothing of it starts after an outage). */
  lastSeq?(taskId: number): Promise<number | null>;
  /** Where a failure of the bus connection is told (never throws). */
  onError?(message: string): void;
  /** Told of each message dropped, by reason only (never its payload: it may be anyone's). */
  onDrop?(reason: BusDropReason): void;
  /** Test hook: the wall clock messages are stamped and checked with. */
  now?(): number;
  /** Backoff between reconnection attempts, doubling up to maxBackoffMs (default 250 ms to 1 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** How long one attempt to connect may take before it counts as failed (default 5 s). */
  connectTimeoutMs?: number;
  /** Waits between tries of a line or row read the database refused, before a `gap` is sent instead. */
  readRetryMs?: number[];
}

/**
 * The event bus across nodes on one PostgreSQL database: everything published here is emitted
 * in this process (as the in-process bus does) and sent with NOTIFY on one dedicated connection;
 * what other nodes send arrives by LISTEN on the same connection and is emitted here. Sending and
 * listening share the connection so a node's events reach the others in the order it sent them.
 *
 * Any role that can connect to the database can NOTIFY and LISTEN on the channel, so messages are
 * signed, dated and numbered (bus-auth.ts) and a node drops what is unsigned, stale or seen. Even
 * a signed message only wakes a node: a stop, kill, confirm or reject is acted on as the task's
 * row says now, the project of announced lines and of updates is the one in the task's row, and
 * the dispatcher and the sockets of a changed user read the database themselves.
 *
 * Log lines are not sent (NOTIFY payloads are small): a node says "task T has lines f..s", at most
 * once per LOG_BATCH_MS per task, and a node where someone watches T reads those lines from the
 * table (bus-inbox.ts); a task's events from another node are handled in order.
 *
 * When the connection drops, the bus reconnects with backoff (at most a second apart) and makes
 * good what the outage cost, both ways: it sends again the announcements and updates the database
 * did not take from it (bus-outbox.ts), catches up the other nodes' tasks it tracks or someone here
 * watches from the database (bus-inbox.ts), and tells its `onReconnect` listeners, who re-read
 * what they may have missed (the dispatcher's queue, stop requests).
 */
export class PgEventBus extends EventBus {
  private client: pg.Client | null = null;
  private connected = false;
  private closed = false;
  private backoff: number;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly outbox: BusOutbox;
  /** The last NOTIFY handed to the current connection. */
  private sending: Promise<unknown> = Promise.resolve();
  private readonly inbox: BusInbox;
  private readonly reconnectListeners = new Set<() => void>();
  private hadConnection = false;
  /** This process among the node's lifetimes, and the number of its last message: replays are told apart by them. */
  private readonly instance = randomBytes(12).toString('base64url');
  private sequence = 0;
  private readonly replays = new ReplayGuard();
  private readonly dropped = new Map<BusDropReason, number>();

  constructor(private readonly o: PgBusOptions) {
    super();
    this.backoff = o.minBackoffMs ?? 250;
    this.outbox = new BusOutbox(this.sendOut);
    this.inbox = new BusInbox({
      nodeId: o.nodeId,
      readLines: o.readLines,
      readTask: o.readTask,
      lastSeq: o.lastSeq,
      wantsLines: (taskId) => this.wantsLines(taskId),
      watchedTasks: () => this.watchedTasks(),
      emitLines: (batch) => super.publishLines(batch),
      emitMessage: (m) => super.publish(m),
      drop: (reason) => this.drop(reason),
      onError: o.onError,
      retryMs: o.readRetryMs,
    });
  }

  /** Tasks with an announcement or update the database has not taken from this node yet. */
  owedTasks(): number {
    return this.outbox.owedTasks;
  }

  /** Messages from the channel this node did not believe, by reason. */
  droppedMessages(): Partial<Record<BusDropReason, number>> {
    return Object.fromEntries(this.dropped);
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
    await super.close();
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.outbox.close();
    const c = this.client;
    this.client = null;
    this.connected = false;
    await c?.end().catch(() => undefined);
  }

  override publish(message: WsMessage): void {
    super.publish(message);
    // Lines announced for this task go first: other nodes read them before showing the update.
    if (message.type === 'update') this.outbox.update(message);
    else this.outbox.flushLines(message.task_id);
  }

  override publishLines(batch: LogBatch): void {
    super.publishLines(batch);
    if (batch.lines.length === 0) return;
    this.outbox.stored(batch.task_id, batch.lines[0]!.seq, batch.lines[batch.lines.length - 1]!.seq);
  }

  /** The request stored the task's new state first: other nodes are only told to read it. */
  override control(signal: TaskControl): void {
    super.control(signal);
    this.send({ k: 'control', t: signal.taskId });
  }

  override userChanged(userId: number): void {
    super.userChanged(userId);
    this.send({ k: 'user', u: userId });
  }

  override kick(): void {
    super.kick();
    this.send({ k: 'kick' });
  }

  /** The outbox's messages: `sent` once the database took the NOTIFY, `lost` otherwise (sent again after a reconnect). */
  private readonly sendOut: OutboxSend = (m, sent, lost) => {
    const body: Body = m.kind === 'lines' ? { k: 'lines', t: m.taskId, f: m.first, s: m.last } : { k: 'ws', x: sealForBus(this.o.keys, JSON.stringify(m.frame)) };
    this.send(body, sent, lost);
  };

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  private send(body: Body, sent?: () => void, lost?: () => void): void {
    const c = this.client;
    if (!c || !this.connected) return lost?.();
    this.sequence += 1;
    const payload = signMessage(this.o.keys, { n: this.o.nodeId, i: this.instance, q: this.sequence, ts: this.now() }, body);
    if (Buffer.byteLength(payload) > MAX_PAYLOAD) {
      this.o.onError?.(`bus: a ${body.k} event was too large to send to the other nodes`);
      return;
    }
    // One NOTIFY at a time on the connection (pg queues concurrent queries, but no longer will).
    const notify = this.sending.then(() => c.query('SELECT pg_notify($1, $2)', [BUS_CHANNEL, payload]));
    this.sending = notify.catch(() => undefined);
    notify.then(
      () => sent?.(),
      () => {
        lost?.();
        // Lost on a connection that was already replaced: the new one sends it again now.
        if (this.connected && this.client !== c) this.outbox.resend();
      },
    );
  }

  private async connect(): Promise<void> {
    // Named, so an operator (or a test) can find the bus connection in pg_stat_activity. A timeout,
    // so an attempt against an unreachable server fails and the next one is scheduled; keepalive,
    // so a silently dropped connection is found without waiting for a NOTIFY to fail.
    const c = new pg.Client({
      connectionString: this.o.url,
      application_name: `gantry-bus ${this.o.nodeId}`,
      connectionTimeoutMillis: this.o.connectTimeoutMs ?? 5_000,
      keepAlive: true,
    });
    c.on('error', () => this.lost(c));
    c.on('end', () => this.lost(c));
    c.on('notification', (n) => {
      if (n.channel === BUS_CHANNEL && n.payload) this.receive(n.payload);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${BUS_CHANNEL}`);
    } catch (e) {
      // Connected but not listening (the server went away between the two): not a bus connection.
      await c.end().catch(() => undefined);
      throw e;
    }
    if (this.closed) {
      await c.end().catch(() => undefined);
      return;
    }
    this.client = c;
    this.sending = Promise.resolve();
    this.connected = true;
    this.backoff = this.o.minBackoffMs ?? 250;
    if (this.hadConnection) {
      this.outbox.resend();
      this.inbox.reconnected();
      for (const fn of this.reconnectListeners) fn();
    }
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
    // One attempt a second at most during a long outage: cheap, and the bus is back soon after the database.
    this.backoff = Math.min(this.backoff * 2, this.o.maxBackoffMs ?? 1_000);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect().catch(() => this.scheduleReconnect());
    }, wait);
    this.reconnectTimer.unref();
  }

  private drop(reason: BusDropReason): void {
    this.dropped.set(reason, (this.dropped.get(reason) ?? 0) + 1);
    this.o.onDrop?.(reason);
  }

  /** Signed, fresh and new, or dropped; then only what the body names is done, as the database says. */
  private receive(payload: string): void {
    const opened = openMessage(this.o.keys, payload);
    if (!opened.ok) return this.drop(opened.reason);
    const { header, body } = opened;
    if (header.n === this.o.nodeId) return;
    const fresh = this.replays.check(header, this.now());
    if (fresh !== 'ok') return this.drop(fresh);
    const id = (v: unknown): number | null => (Number.isSafeInteger(v) && (v as number) > 0 ? (v as number) : null);
    switch (body.k) {
      case 'ws': {
        const m = this.updateFrame(body.x);
        if (!m) return this.drop('format');
        this.inbox.updated(m);
        return;
      }
      case 'lines': {
        const [t, f, s] = [id(body.t), id(body.f), id(body.s)];
        if (t === null || f === null || s === null) return this.drop('format');
        this.inbox.announced(t, f, s);
        return;
      }
      case 'control': {
        const t = id(body.t);
        if (t === null) return this.drop('format');
        void this.readControl(t).catch((err: unknown) => this.o.onError?.(`bus: ${(err as Error).message}`));
        return;
      }
      case 'user': {
        const u = id(body.u);
        if (u === null) return this.drop('format');
        super.userChanged(u);
        return;
      }
      case 'kick':
        super.kick();
        return;
      default:
        return this.drop('format');
    }
  }

  /** The update frame an other node sealed, or null when it does not open or is not one. */
  private updateFrame(sealed: unknown): UpdateFrame | null {
    const text = openFromBus(this.o.keys, sealed);
    if (text === null) return null;
    try {
      const m = JSON.parse(text) as WsMessage;
      return m.type === 'update' && Number.isSafeInteger(m.task_id) && Number.isSafeInteger(m.project_id) ? m : null;
    } catch {
      return null;
    }
  }

  /** A stop, kill, confirm or reject as the task's row asks for it now, whatever woke this node. */
  private async readControl(taskId: number): Promise<void> {
    const task = await this.o.readTask(taskId);
    const action = task ? storedControl(task) : null;
    if (action) super.control({ taskId, action });
  }
}
