import { WS_CLOSE_SIGNED_OUT, WS_CLOSE_TOO_SLOW, type WsMessage } from '@gantry/contracts';
import type { EventBus } from './bus.js';

export interface HubSocket {
  send(data: string): void;
  close(code: number, reason: string): void;
  readonly readyState: number;
  /** Bytes queued for the client and not yet written to the network. */
  readonly bufferedAmount: number;
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
  /** projectId -> [allowed, checkedAt]; membership is rechecked after a while. */
  access: Map<number, [boolean, number]>;
  /** Bumped when `access` is cleared, so an answer looked up before the change is not cached. */
  generation: number;
  /** A re-check in flight: messages for this client wait for it, so none leaks past a revocation. */
  checking: Promise<void> | null;
}

export interface HubOptions {
  /** Every socket's credential is checked this often (default 1 s), for changes that raised no event (another node, expiry, the CLI). */
  revalidateMs?: number;
  /** A client that lets more than this much pile up unread is closed rather than buffered for. */
  maxBufferedBytes?: number;
}

const RECHECK_MS = 10_000;
const OPEN = 1;

/**
 * Sends task updates and log lines to the sockets of the project's members and admins only.
 * Membership is looked up once per socket and project, then cached briefly; a user-changed event
 * (sign-out, revocation, demotion, membership change) re-checks that user's sockets at once and
 * closes those whose credential is gone.
 */
export class RealtimeHub {
  private readonly clients = new Set<Client>();
  /** Messages go out one after another, so a client sees lines in the order they were written. */
  private queue: Promise<void> = Promise.resolve();
  private readonly maxBuffered: number;
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: Array<() => void>;
  private sweeping = false;

  constructor(
    bus: EventBus,
    private readonly isMember: (projectId: number, userId: number) => Promise<boolean>,
    private readonly validate: ValidateCredential,
    options: HubOptions = {},
  ) {
    this.maxBuffered = options.maxBufferedBytes ?? 8 * 1024 * 1024;
    this.unsubscribe = [
      bus.onMessage((m) => {
        if (this.clients.size === 0) return;
        this.queue = this.queue.then(() => this.dispatch(m)).catch(() => undefined);
      }),
      bus.onUserChanged((userId) => this.userChanged(userId)),
    ];
    this.timer = setInterval(() => void this.sweep().catch(() => undefined), options.revalidateMs ?? 1_000);
    this.timer.unref();
  }

  add(socket: HubSocket, user: SocketUser, credential: Credential): () => void {
    const client: Client = {
      socket,
      credential,
      userId: user.id,
      admin: user.admin,
      access: new Map(),
      generation: 0,
      checking: null,
    };
    this.clients.add(client);
    return () => this.clients.delete(client);
  }

  get size(): number {
    return this.clients.size;
  }

  /** Stops the timer and the bus listeners (the server is closing). */
  close(): void {
    clearInterval(this.timer);
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
      // Cannot tell whether the credential still stands: drop the socket, the console reconnects.
      this.drop(c, CLOSE_INTERNAL, 'try again');
      return;
    }
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

  private async dispatch(m: WsMessage): Promise<void> {
    const text = JSON.stringify(m);
    for (const c of this.clients) {
      if (c.checking) await c.checking;
      if (c.socket.readyState !== OPEN || !this.clients.has(c)) continue;
      if (c.admin || (await this.allowed(c, m.project_id))) this.send(c, text);
    }
  }

  private send(c: Client, text: string): void {
    // A client that does not read would make the server hold every line for it: let it go instead.
    if (c.socket.bufferedAmount > this.maxBuffered) {
      this.drop(c, CLOSE_TOO_SLOW, 'too slow');
      return;
    }
    c.socket.send(text);
  }

  private async allowed(c: Client, projectId: number): Promise<boolean> {
    const cached = c.access.get(projectId);
    const now = Date.now();
    if (cached && now - cached[1] < RECHECK_MS) return cached[0];
    for (;;) {
      const generation = c.generation;
      const ok = await this.isMember(projectId, c.userId).catch(() => false);
      // The user changed while we asked: the answer may predate the change, ask again.
      if (generation !== c.generation) continue;
      c.access.set(projectId, [ok, now]);
      return ok;
    }
  }
}
