import { FINISHED_STATUSES, LOG_BATCH_MS, type WsMessage } from '@gantry/contracts';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { LogLine } from '../engine/ports.js';
import { EventBus, storedControl, type LogBatch, type TaskControl, type TaskFacts } from './bus.js';
import { ReplayGuard, openFromBus, openMessage, sealForBus, signMessage, type BusDropReason, type BusKeys } from './bus-auth.js';

/** The one channel every node listens on. */
export const BUS_CHANNEL = 'gantry_bus';
/** PostgreSQL refuses NOTIFY payloads of 8,000 bytes and more. */
const MAX_PAYLOAD = 7900;
const READ_PAGE = 5000;
/** Tasks whose project this node remembers (a task never changes project). */
const PROJECT_CACHE = 10_000;

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
  /** Where a failure of the bus connection is told (never throws). */
  onError?(message: string): void;
  /** Told of each message dropped, by reason only (never its payload: it may be anyone's). */
  onDrop?(reason: BusDropReason): void;
  /** Test hook: the wall clock messages are stamped and checked with. */
  now?(): number;
  /** Backoff between reconnection attempts, doubling up to maxBackoffMs (default 250 ms to 5 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** How long one attempt to connect may take before it counts as failed (default 5 s). */
  connectTimeoutMs?: number;
}

interface LineAnnouncement {
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
 * Any role that can connect to the database can NOTIFY and LISTEN on the channel, so messages are
 * signed, dated and numbered (bus-auth.ts) and a node drops what is unsigned, stale or seen. Even
 * a signed message only wakes a node: a stop, kill, confirm or reject is acted on as the task's
 * row says now, the project of announced lines and of updates is the one in the task's row, and
 * the dispatcher and the sockets of a changed user read the database themselves.
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
  /** This process among the node's lifetimes, and the number of its last message: replays are told apart by them. */
  private readonly instance = randomBytes(12).toString('base64url');
  private sequence = 0;
  private readonly replays = new ReplayGuard();
  private readonly projects = new Map<number, number>();
  private readonly dropped = new Map<BusDropReason, number>();

  constructor(private readonly o: PgBusOptions) {
    super();
    this.backoff = o.minBackoffMs ?? 250;
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
    if (message.type === 'update') this.send({ k: 'ws', x: sealForBus(this.o.keys, JSON.stringify(message)) });
    if (message.type === 'update' && FINISHED_STATUSES.includes(message.status as never)) this.announcements.delete(message.task_id);
  }

  override publishLines(batch: LogBatch): void {
    super.publishLines(batch);
    if (batch.lines.length === 0) return;
    const first = batch.lines[0]!.seq;
    const last = batch.lines[batch.lines.length - 1]!.seq;
    let a = this.announcements.get(batch.task_id);
    if (!a) {
      a = { first, last, lastSent: 0 };
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

  private announceNow(taskId: number): void {
    const a = this.announcements.get(taskId);
    if (!a) return;
    clearTimeout(a.timer);
    a.timer = undefined;
    if (a.first === 0) return;
    this.send({ k: 'lines', t: taskId, f: a.first, s: a.last });
    a.first = 0;
    a.lastSent = Date.now();
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  private send(body: Body): void {
    const c = this.client;
    if (!c || !this.connected) return;
    this.sequence += 1;
    const payload = signMessage(this.o.keys, { n: this.o.nodeId, i: this.instance, q: this.sequence, ts: this.now() }, body);
    if (Buffer.byteLength(payload) > MAX_PAYLOAD) {
      this.o.onError?.(`bus: a ${body.k} event was too large to send to the other nodes`);
      return;
    }
    c.query('SELECT pg_notify($1, $2)', [BUS_CHANNEL, payload]).catch(() => undefined);
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
    this.backoff = Math.min(this.backoff * 2, this.o.maxBackoffMs ?? 5_000);
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
        this.inOrder(m.task_id, async () => {
          if ((await this.projectOf(m.task_id)) !== m.project_id) return this.drop('task');
          super.publish(m);
          if (FINISHED_STATUSES.includes(m.status as never)) this.cursors.delete(m.task_id);
        });
        return;
      }
      case 'lines': {
        const [t, f, s] = [id(body.t), id(body.f), id(body.s)];
        if (t === null || f === null || s === null) return this.drop('format');
        this.inOrder(t, () => this.readAnnounced(t, f, s));
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
  private updateFrame(sealed: unknown): Extract<WsMessage, { type: 'update' }> | null {
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

  /** The project of a task as stored, or null when there is no such task. */
  private async projectOf(taskId: number): Promise<number | null> {
    const known = this.projects.get(taskId);
    if (known !== undefined) return known;
    const task = await this.o.readTask(taskId);
    if (!task) return null;
    if (this.projects.size >= PROJECT_CACHE) this.projects.delete(this.projects.keys().next().value!);
    this.projects.set(taskId, task.project_id);
    return task.project_id;
  }

  /** Runs `fn` after every earlier event of the task from other nodes. */
  private inOrder(taskId: number, fn: () => Promise<void>): void {
    const next = (this.chains.get(taskId) ?? Promise.resolve()).then(fn).catch((err: unknown) => this.o.onError?.(`bus: ${(err as Error).message}`));
    this.chains.set(taskId, next);
    void next.then(() => {
      if (this.chains.get(taskId) === next) this.chains.delete(taskId);
    });
  }

  private async readAnnounced(taskId: number, first: number, last: number): Promise<void> {
    const cursor = this.cursors.get(taskId);
    let from = cursor === undefined ? first : Math.max(cursor + 1, first);
    this.cursors.set(taskId, Math.max(cursor ?? 0, last));
    // Nobody here watches the task: nothing to read (a later watcher loads the stored log).
    if (!this.wantsLines(taskId) || from > last) return;
    // The lines go to the watchers of the project the task's row names, never one a message names.
    const projectId = await this.projectOf(taskId);
    if (projectId === null) return this.drop('task');
    while (from <= last) {
      const lines = await this.o.readLines(taskId, from, last, READ_PAGE);
      if (lines.length === 0) return;
      super.publishLines({ project_id: projectId, task_id: taskId, lines });
      from = lines[lines.length - 1]!.seq + 1;
    }
  }
}
