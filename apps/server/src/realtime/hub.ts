import { LOG_BATCH_MS, WS_CLOSE_SIGNED_OUT, WS_CLOSE_TOO_SLOW, isFinished, type WsMessage } from '@gantry/contracts';
import type { EventBus, LogBatch } from './bus.js';
import { LineBurst, gapFrame, type Gap, type TaskStream } from './log-fanout.js';

export interface HubSocket {
  send(data: string): void;
  close(code: number, reason: string): void;
  readonly readyState: number;
  /** Bytes queued for the client and not yet written to the network. */
  readonly bufferedAmount: number;
  /** Already-encoded text frames (`encodeTextFrames`), written at once after everything sent before; absent where there is no such path. */
  sendFrames?(frames: Buffer): void;
}

/** What a socket signed in with at upgrade; checked again whenever its user changes. */
export interface Credential {
  kind: 'session' | 'token';
  value: string;
}

export interface SocketUser {
  id: number;
  admin: boolean;
}

/** The credential's current user, or null once the session or token is gone. */
export type ValidateCredential = (credential: Credential) => Promise<SocketUser | null>;

/** Close codes the console may see (4000-4999 are for applications). */
export const CLOSE_TOO_SLOW = WS_CLOSE_TOO_SLOW;
export const CLOSE_SIGNED_OUT = WS_CLOSE_SIGNED_OUT;
const CLOSE_INTERNAL = 1011;

interface Client {
  socket: HubSocket;
  credential: Credential;
  userId: number;
  admin: boolean;
  /** `legacy`: never subscribed, gets per-line `log` frames of every task it may see (Semaphore's console). */
  mode: 'legacy' | 'subscribe';
  /** Tasks whose lines this socket asked for (subscribe mode). */
  subscriptions: Set<number>;
  /** Lines dropped while the socket was behind, per task; told to it as `gap` once it catches up. */
  gaps: Map<number, Gap>;
  /** projectId -> [allowed, checkedAt]; membership is rechecked after a while. */
  access: Map<number, [boolean, number]>;
  /** Bumped when `access` is cleared, so an answer looked up before the change is not cached. */
  generation: number;
  /** Since when its credential could not be checked (the database was away), or null. */
  uncheckedSince: number | null;
  /** A re-check in flight: messages for this client wait for it, so none leaks past a revocation. */
  checking: Promise<void> | null;
  /** Sends waiting for a lookup, in order; null when nothing waits (the usual case: sends go out at once). */
  tail: Promise<void> | null;
}

/** What the WebSocket route holds for one connection. */
export interface HubConnection {
  /** The socket went away. */
  remove(): void;
  /** From now on, lines of this task (and no longer per-line frames of every task). */
  subscribe(taskId: number): void;
  unsubscribe(taskId: number): void;
}

export interface HubOptions {
  /** Every socket's credential is checked this often (default 1 s), for changes that raised no event (another node, expiry, the CLI). */
  revalidateMs?: number;
  /** A client that lets more than this much pile up unread is closed rather than buffered for. */
  maxBufferedBytes?: number;
  /** Above this many unsent bytes a socket's new log lines are dropped (and later reported as a gap). */
  maxLagBytes?: number;
  /** At most one send of a task's lines per this many ms (default LOG_BATCH_MS). */
  batchMs?: number;
  /** How long a socket stays open while its credential cannot be checked (default 15 s). */
  uncheckedGraceMs?: number;
}

const RECHECK_MS = 10_000;
const LOOKUP_RETRY_MS = [200, 500, 1000];
const OPEN = 1;
/** A task whose lines stopped coming is forgotten after this long. */
const STREAM_IDLE_MS = 60_000;

/**
 * Sends task updates and log lines to the sockets of the project's members and admins only.
 * Log lines are gathered per task and sent at most once per LOG_BATCH_MS, serialised once for all
 * sockets; a socket that has fallen behind (bufferedAmount over the lag limit) has its lines for
 * the task dropped and gets one `gap` message for them once it catches up, so a slow console
 * never makes the server hold a task's log for it. Updates are sent at once, after the lines
 * gathered so far for their task. Membership is looked up once per socket and project, then
 * cached briefly; a user-changed event re-checks that user's sockets at once and closes those
 * whose credential is gone.
 */
export class RealtimeHub {
  private readonly clients = new Set<Client>();
  private readonly streams = new Map<number, TaskStream>();
  private readonly maxBuffered: number;
  private readonly maxLag: number;
  private readonly batchMs: number;
  private readonly uncheckedGraceMs: number;
  private readonly timer: NodeJS.Timeout;
  private gapTimer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: Array<() => void>;
  private sweeping = false;

  constructor(
    bus: EventBus,
    private readonly isMember: (projectId: number, userId: number) => Promise<boolean>,
    private readonly validate: ValidateCredential,
    options: HubOptions = {},
  ) {
    this.maxBuffered = options.maxBufferedBytes ?? 8 * 1024 * 1024;
    this.maxLag = options.maxLagBytes ?? 1024 * 1024;
    this.batchMs = options.batchMs ?? LOG_BATCH_MS;
    this.uncheckedGraceMs = options.uncheckedGraceMs ?? 15_000;
    this.unsubscribe = [
      bus.onMessage((m) => {
        if (this.clients.size > 0) this.message(m);
      }),
      bus.onLines((b) => this.lines(b)),
      bus.onUserChanged((userId) => this.userChanged(userId)),
    ];
    // Lines of tasks other nodes run are read from the database only when someone here watches.
    bus.setLineInterest((taskId) => this.watched(taskId));
    bus.setWatchedTasks(() => this.subscribedTasks());
    this.timer = setInterval(() => {
      void this.sweep().catch(() => undefined);
      this.forgetIdleStreams();
    }, options.revalidateMs ?? 1_000);
    this.timer.unref();
  }

  /** A new socket; `subscribeMode` when it asked for it at connect (`?logs=subscribe`). */
  add(socket: HubSocket, user: SocketUser, credential: Credential, subscribeMode = false): HubConnection {
    const client: Client = {
      socket,
      credential,
      userId: user.id,
      admin: user.admin,
      mode: subscribeMode ? 'subscribe' : 'legacy',
      subscriptions: new Set(),
      gaps: new Map(),
      access: new Map(),
      generation: 0,
      uncheckedSince: null,
      checking: null,
      tail: null,
    };
    this.clients.add(client);
    return {
      remove: () => this.clients.delete(client),
      subscribe: (taskId) => {
        client.mode = 'subscribe';
        client.subscriptions.add(taskId);
      },
      unsubscribe: (taskId) => {
        client.mode = 'subscribe';
        client.subscriptions.delete(taskId);
        client.gaps.delete(taskId);
      },
    };
  }

  get size(): number {
    return this.clients.size;
  }

  /** Stops the timer and the bus listeners (the server is closing). */
  close(): void {
    clearInterval(this.timer);
    clearInterval(this.gapTimer);
    for (const s of this.streams.values()) clearTimeout(s.timer);
    this.streams.clear();
    for (const off of this.unsubscribe) off();
  }

  private userChanged(userId: number): void {
    for (const c of this.clients) {
      if (c.userId !== userId) continue;
      this.forgetAccess(c);
      void this.recheck(c, this.validate);
    }
  }

  /** The backstop: one lookup per distinct credential (tabs of one browser share a cookie). */
  private async sweep(): Promise<void> {
    if (this.sweeping || this.clients.size === 0) return;
    this.sweeping = true;
    const seen = new Map<string, Promise<SocketUser | null>>();
    const once: ValidateCredential = (cr) => {
      const key = `${cr.kind}\0${cr.value}`;
      let found = seen.get(key);
      if (!found) {
        found = this.validate(cr);
        seen.set(key, found);
      }
      return found;
    };
    try {
      await Promise.all([...this.clients].map((c) => this.recheck(c, once)));
    } finally {
      this.sweeping = false;
    }
  }

  /** Checks after any check already in flight, so the latest change always wins. */
  private recheck(c: Client, validate: ValidateCredential): Promise<void> {
    const run = (c.checking ?? Promise.resolve()).then(() => this.revalidate(c, validate));
    c.checking = run;
    void run.then(() => {
      if (c.checking === run) c.checking = null;
    });
    return run;
  }

  private async revalidate(c: Client, validate: ValidateCredential): Promise<void> {
    if (!this.clients.has(c)) return;
    let user: SocketUser | null;
    try {
      user = await validate(c.credential);
    } catch {
      // Cannot tell whether the credential still stands: the database is away. What a socket gets is
      // read from or stored in the database first, so little reaches it meanwhile; a short outage (a
      // restart, a failover) keeps the socket, a longer one drops it and the console reconnects.
      c.uncheckedSince ??= Date.now();
      if (Date.now() - c.uncheckedSince >= this.uncheckedGraceMs) this.drop(c, CLOSE_INTERNAL, 'try again');
      return;
    }
    c.uncheckedSince = null;
    if (!user || user.id !== c.userId) {
      this.drop(c, CLOSE_SIGNED_OUT, 'signed out');
      return;
    }
    if (user.admin !== c.admin) this.forgetAccess(c);
    c.admin = user.admin;
  }

  private forgetAccess(c: Client): void {
    c.access.clear();
    c.generation += 1;
  }

  private drop(c: Client, code: number, reason: string): void {
    this.clients.delete(c);
    if (c.socket.readyState === OPEN) c.socket.close(code, reason);
  }

  /** An update (or another whole message): out at once, after the lines gathered so far for its task. */
  private message(m: WsMessage): void {
    const stream = this.streams.get(m.task_id);
    if (stream) {
      this.flush(stream);
      if (m.type === 'update' && isFinished(m.status)) this.streams.delete(m.task_id);
    }
    const text = JSON.stringify(m);
    for (const c of this.clients) {
      // A `gap` (the bus could not read lines) concerns only the sockets that take the task's lines.
      if (m.type !== 'update' && c.mode === 'subscribe' && !c.subscriptions.has(m.task_id)) continue;
      this.deliver(c, m.project_id, () => this.send(c, text));
    }
  }

  /** Stored lines of a task: gathered, and sent at most once per batch interval (at once when idle). */
  private lines(b: LogBatch): void {
    if (b.lines.length === 0 || !this.watched(b.task_id)) return;
    let s = this.streams.get(b.task_id);
    if (!s) {
      s = { projectId: b.project_id, taskId: b.task_id, batches: [], lastFlush: -Infinity, timer: undefined };
      this.streams.set(b.task_id, s);
    }
    s.batches.push(b.lines);
    if (s.timer) return;
    const wait = s.lastFlush + this.batchMs - Date.now();
    if (wait <= 0) this.flush(s);
    else s.timer = setTimeout(() => this.flush(s), wait);
  }

  /** Someone may want this task's lines: a legacy socket (every task) or a subscriber. */
  private watched(taskId: number): boolean {
    for (const c of this.clients) if (c.mode === 'legacy' || c.subscriptions.has(taskId)) return true;
    return false;
  }

  private subscribedTasks(): Set<number> {
    const ids = new Set<number>();
    for (const c of this.clients) for (const id of c.subscriptions) ids.add(id);
    return ids;
  }

  private flush(s: TaskStream): void {
    clearTimeout(s.timer);
    s.timer = undefined;
    if (s.batches.length === 0) return;
    const lines = s.batches.length === 1 ? s.batches[0]! : s.batches.flat();
    s.batches = [];
    const burst = new LineBurst(s.projectId, s.taskId, lines);
    for (const c of this.clients) {
      if (c.mode === 'subscribe' && !c.subscriptions.has(s.taskId)) continue;
      this.deliver(c, s.projectId, () => this.sendLines(c, burst));
    }
    // Counted from when the send is done: serialising a big burst must not shorten the next interval.
    s.lastFlush = Date.now();
  }

  private sendLines(c: Client, burst: LineBurst): void {
    if (c.mode === 'subscribe' && !c.subscriptions.has(burst.taskId)) return;
    const gap = c.gaps.get(burst.taskId);
    if (c.socket.bufferedAmount > this.maxLag) {
      // Behind: these lines are stored, the client reads them over HTTP once told of the gap.
      c.gaps.set(burst.taskId, { projectId: burst.projectId, fromSeq: gap?.fromSeq ?? burst.fromSeq, toSeq: burst.toSeq });
      this.gapTimer ??= setInterval(() => this.drainGaps(), this.batchMs);
      return;
    }
    if (gap) {
      c.gaps.delete(burst.taskId);
      c.socket.send(gapFrame(burst.taskId, gap));
    }
    if (c.mode === 'subscribe') for (const frame of burst.logs()) c.socket.send(frame);
    // Semaphore's `log` carries one line: the burst's frames go in one write where the socket can take it.
    else if (c.socket.sendFrames) c.socket.sendFrames(burst.perLineFrames());
    else for (const frame of burst.perLine()) c.socket.send(frame);
  }

  /** Tells caught-up sockets of the lines they missed, also when no more lines follow. */
  private drainGaps(): void {
    let left = false;
    for (const c of this.clients) {
      if (c.gaps.size === 0) continue;
      if (c.socket.readyState !== OPEN) {
        c.gaps.clear();
        continue;
      }
      if (c.socket.bufferedAmount > this.maxLag) {
        left = true;
        continue;
      }
      for (const [taskId, gap] of c.gaps) c.socket.send(gapFrame(taskId, gap));
      c.gaps.clear();
    }
    for (const c of this.clients) if (c.gaps.size) left = true;
    if (!left) {
      clearInterval(this.gapTimer);
      this.gapTimer = undefined;
    }
  }

  private forgetIdleStreams(): void {
    const now = Date.now();
    for (const [id, s] of this.streams) if (!s.timer && s.batches.length === 0 && now - s.lastFlush > STREAM_IDLE_MS) this.streams.delete(id);
  }

  /**
   * Runs `fn` for a client allowed to see the project: at once when its access is known (the usual
   * case), else after the lookup, keeping the client's sends in order.
   */
  private deliver(c: Client, projectId: number, fn: () => void): void {
    if (!c.tail && !c.checking) {
      const known = c.admin ? true : this.cachedAccess(c, projectId);
      if (known !== undefined) {
        if (known && c.socket.readyState === OPEN && this.clients.has(c)) fn();
        return;
      }
    }
    const next = (c.tail ?? Promise.resolve())
      .then(async () => {
        if (c.checking) await c.checking;
        if (c.socket.readyState !== OPEN || !this.clients.has(c)) return;
        if (c.admin || (await this.allowed(c, projectId))) fn();
      })
      .catch(() => undefined);
    c.tail = next;
    void next.then(() => {
      if (c.tail === next) c.tail = null;
    });
  }

  private cachedAccess(c: Client, projectId: number): boolean | undefined {
    const cached = c.access.get(projectId);
    if (cached && Date.now() - cached[1] < RECHECK_MS) return cached[0];
    return undefined;
  }

  private send(c: Client, text: string): void {
    // A client that does not read would make the server hold every message for it: let it go instead.
    if (c.socket.bufferedAmount > this.maxBuffered) {
      this.drop(c, CLOSE_TOO_SLOW, 'too slow');
      return;
    }
    c.socket.send(text);
  }

  private async allowed(c: Client, projectId: number): Promise<boolean> {
    const cached = this.cachedAccess(c, projectId);
    if (cached !== undefined) return cached;
    const now = Date.now();
    for (let failures = 0; ; ) {
      const generation = c.generation;
      let ok: boolean;
      try {
        ok = await this.isMember(projectId, c.userId);
      } catch {
        // The database is away (a reconnecting bus may catch up before the pool does): asked again
        // a few times, and a refusal is never remembered.
        if (++failures > LOOKUP_RETRY_MS.length) return false;
        await new Promise((r) => setTimeout(r, LOOKUP_RETRY_MS[failures - 1]));
        continue;
      }
      // The user changed while we asked: the answer may predate the change, ask again.
      if (generation !== c.generation) continue;
      c.access.set(projectId, [ok, now]);
      return ok;
    }
  }
}
