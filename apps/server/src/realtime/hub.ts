import type { WsMessage } from '@gantry/contracts';
import type { EventBus } from './bus.js';

export interface HubSocket {
  send(data: string): void;
  readonly readyState: number;
}

interface Client {
  socket: HubSocket;
  userId: number;
  admin: boolean;
  /** projectId -> [allowed, checkedAt]; membership is rechecked after a while. */
  access: Map<number, [boolean, number]>;
}

const RECHECK_MS = 10_000;
const OPEN = 1;

/**
 * Sends task updates and log lines to the sockets of the project's members and admins only.
 * Membership is looked up once per socket and project, then cached briefly.
 */
export class RealtimeHub {
  private readonly clients = new Set<Client>();
  /** Messages go out one after another, so a client sees lines in the order they were written. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    bus: EventBus,
    private readonly isMember: (projectId: number, userId: number) => Promise<boolean>,
  ) {
    bus.onMessage((m) => {
      if (this.clients.size === 0) return;
      this.queue = this.queue.then(() => this.dispatch(m)).catch(() => undefined);
    });
  }

  add(socket: HubSocket, user: { id: number; admin: boolean }): () => void {
    const client: Client = { socket, userId: user.id, admin: user.admin, access: new Map() };
    this.clients.add(client);
    return () => this.clients.delete(client);
  }

  get size(): number {
    return this.clients.size;
  }

  private async dispatch(m: WsMessage): Promise<void> {
    const text = JSON.stringify(m);
    for (const c of this.clients) {
      if (c.socket.readyState !== OPEN) continue;
      if (c.admin || (await this.allowed(c, m.project_id))) c.socket.send(text);
    }
  }

  private async allowed(c: Client, projectId: number): Promise<boolean> {
    const cached = c.access.get(projectId);
    const now = Date.now();
    if (cached && now - cached[1] < RECHECK_MS) return cached[0];
    const ok = await this.isMember(projectId, c.userId).catch(() => false);
    c.access.set(projectId, [ok, now]);
    return ok;
  }
}
