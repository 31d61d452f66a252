import type { ClusterNode } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import type { NodesRepository } from './nodes.repository.js';

export interface ClusterDeps {
  nodes: NodesRepository;
  clock: Clock;
  nodeId: string;
  address: string;
  version: string;
  /** A node silent this long is dead (GANTRY_NODE_TIMEOUT_SECONDS). */
  timeoutSeconds: number;
  /** Fails a dead node's running tasks; answers how many. */
  failNode(nodeId: string): Promise<number>;
  /** Wakes the dispatchers: the dead node's place in the queue is free. */
  kick(): void;
  /** Tells the operator (log) that a node was found dead. */
  onReaped?(nodeId: string, failedTasks: number): void;
  onError?(err: unknown): void;
}

/**
 * This node's membership: a heartbeat every few seconds (a third of the timeout, at most 5 s) and,
 * at the same pace, a look for nodes that stopped writing theirs. The first live node to reap a
 * dead one fails its running tasks; the others find the row gone and do nothing.
 */
export class ClusterService {
  private timer: NodeJS.Timeout | undefined;
  private started = '';
  private beating: Promise<void> | null = null;

  constructor(private readonly d: ClusterDeps) {}

  get intervalMs(): number {
    return Math.min(5_000, (this.d.timeoutSeconds * 1000) / 3);
  }

  async start(): Promise<void> {
    this.started = this.d.clock.now().toISOString();
    await this.beat();
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One heartbeat and one look for dead nodes; answers the nodes this call reaped. */
  async tick(): Promise<string[]> {
    if (this.beating) return [];
    const run = (async () => {
      await this.beat();
      return this.reapDead();
    })();
    this.beating = run.then(() => undefined, () => undefined);
    try {
      return await run;
    } catch (e) {
      this.d.onError?.(e);
      return [];
    } finally {
      this.beating = null;
    }
  }

  async list(): Promise<ClusterNode[]> {
    const now = this.d.clock.now().getTime();
    return (await this.d.nodes.list()).map((n) => ({
      id: n.id,
      address: n.address,
      version: n.version,
      started: n.started,
      last_heartbeat: n.last_heartbeat,
      heartbeat_age_seconds: Math.max(0, Math.round((now - Date.parse(n.last_heartbeat)) / 100) / 10),
      running_tasks: n.running_tasks,
      self: n.id === this.d.nodeId,
    }));
  }

  /** Seconds since this node last wrote its heartbeat (for /metrics). */
  heartbeatAgeSeconds(): number {
    return this.lastBeat ? (this.d.clock.now().getTime() - this.lastBeat) / 1000 : 0;
  }

  private lastBeat = 0;

  private async beat(): Promise<void> {
    const now = this.d.clock.now();
    await this.d.nodes.heartbeat({ id: this.d.nodeId, address: this.d.address, version: this.d.version, started: this.started || now.toISOString(), last_heartbeat: now.toISOString() });
    this.lastBeat = now.getTime();
  }

  private async reapDead(): Promise<string[]> {
    const cutoff = new Date(this.d.clock.now().getTime() - this.d.timeoutSeconds * 1000).toISOString();
    const reaped: string[] = [];
    for (const n of await this.d.nodes.stale(cutoff, this.d.nodeId)) {
      if (!(await this.d.nodes.reap(n.id, cutoff))) continue;
      reaped.push(n.id);
      const failed = await this.d.failNode(n.id);
      this.d.onReaped?.(n.id, failed);
    }
    if (reaped.length) this.d.kick();
    return reaped;
  }
}
