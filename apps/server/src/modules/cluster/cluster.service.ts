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
  /** This node's runs, which the heartbeat stops once the database says they are no longer its own. */
  fence?: ClusterFence;
  /** Tells the operator (log) that this node found itself declared dead, and how many runs it killed. */
  onFenced?(killedRuns: number): void;
  onError?(err: unknown): void;
}

/** What the heartbeat needs of this node's runs. */
export interface ClusterFence {
  /** Tasks this process runs now. */
  runningIds(): number[];
  /** Kills these runs' processes at once (SIGKILL), with a line for their log when one is given. */
  kill(taskIds: number[], line?: string): void;
}

/**
 * This node's membership: a heartbeat every few seconds (a third of the timeout, at most 5 s) and,
 * at the same pace, a look for nodes that stopped writing theirs. The first live node to reap a
 * dead one fails its running tasks; the others find the row gone and do nothing.
 *
 * A node that was itself declared dead (stopped, frozen, cut off longer than the timeout) finds
 * its row gone at its next heartbeat: the others failed its tasks, so it kills its runs at once
 * and joins again as a new member. Each heartbeat also kills any run whose task the database no
 * longer holds as this node's (a run's writes are refused anyway: see engine/fencing.ts).
 */
export class ClusterService {
  private timer: NodeJS.Timeout | undefined;
  private started = '';
  /** This process has had a row: a heartbeat finding none means the others reaped it. */
  private joined = false;
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

  /** Leaves the cluster (a drained shutdown): no more heartbeats, and its row deleted, so no node waits for it to time out. */
  async leave(): Promise<void> {
    this.stop();
    // A heartbeat in flight would write the row again after the delete.
    await this.beating;
    await this.d.nodes.remove(this.d.nodeId);
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
    const row = () => ({ id: this.d.nodeId, address: this.d.address, version: this.d.version, started: this.started || now.toISOString(), last_heartbeat: now.toISOString() });
    if (!(await this.d.nodes.beat(row()))) {
      if (this.joined) this.fenced(now);
      await this.d.nodes.register(row());
    }
    this.joined = true;
    this.lastBeat = now.getTime();
    await this.killDisowned();
  }

  /** Found reaped: every run here belongs to a task the others failed. */
  private fenced(now: Date): void {
    const ids = this.d.fence?.runningIds() ?? [];
    this.d.fence?.kill(ids, `This node (${this.d.nodeId}) was declared dead by the other nodes (no heartbeat for ${this.d.timeoutSeconds} s); the task was stopped.`);
    // A new membership: the Cluster page shows when it joined again.
    this.started = now.toISOString();
    this.d.onFenced?.(ids.length);
  }

  /** Runs whose task the database no longer holds as live and this node's (failed by another node, swept) end at once. */
  private async killDisowned(): Promise<void> {
    const ids = this.d.fence?.runningIds() ?? [];
    if (ids.length === 0) return;
    const owned = await this.d.nodes.stillOwned(ids, this.d.nodeId);
    const lost = ids.filter((id) => !owned.has(id));
    if (lost.length) this.d.fence!.kill(lost);
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
