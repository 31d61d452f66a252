import os from 'node:os';
import type { Config } from '../config/config.js';
import type { Db } from '../db/db.js';
import { removeLeftovers } from '../engine/leftovers.js';
import type { LocalRuns } from '../engine/local-runs.js';
import { ClusterService } from '../modules/cluster/cluster.service.js';
import { NodesRepository } from '../modules/cluster/nodes.repository.js';
import type { TasksService } from '../modules/tasks/tasks.service.js';
import type { Clock } from '../platform/clock.js';
import type { EventBus } from '../realtime/bus.js';

export interface ClusterDeps {
  config: Config;
  db: Db;
  clock: Clock;
  node: string;
  bus: EventBus;
  runs: LocalRuns;
  tasks: TasksService;
}

/**
 * This node's membership of the cluster (heartbeat, reaping dead nodes, fencing itself), and the
 * start-up clean-up of task folders that no live node runs.
 */
export function createCluster({ config, db, clock, node, bus, runs, tasks }: ClusterDeps): {
  cluster: ClusterService;
  removeLeftovers: () => Promise<{ folders: number; agents: number }>;
} {
  const nodesRepo = new NodesRepository(db.db);
  const cluster = new ClusterService({
    nodes: nodesRepo,
    clock,
    nodeId: node,
    address: config.nodeAddress ?? `${os.hostname()}:${config.port}`,
    version: config.version,
    timeoutSeconds: config.nodeTimeoutSeconds,
    failNode: (id) => tasks.failDeadNode(id),
    kick: () => bus.kick(),
    onReaped: (id, failed) =>
      process.stderr.write(`Node ${id} stopped answering: ${failed} of its task(s) were failed\n`),
    fence: {
      runningIds: () => runs.ids(),
      kill: (ids, line) => ids.forEach((id) => runs.kill(id, line)),
    },
    onFenced: (killed) =>
      process.stderr.write(
        `This node was declared dead by the other nodes (no heartbeat for ${config.nodeTimeoutSeconds} s): ${killed} of its task(s), failed by them, were killed here; it joined the cluster again\n`,
      ),
  });
  const leftovers = () =>
    removeLeftovers({
      workRoot: config.taskDir,
      activeElsewhere: (ids) => nodesRepo.activeElsewhere(ids, node),
      runningHere: (id) => runs.has(id),
    });
  return { cluster, removeLeftovers: leftovers };
}
