import { ACTIVE_STATUSES } from '@gantry/contracts';
import type { Kysely } from 'kysely';
import type { Database, NodeTable } from '../../db/types.js';

export type NodeRow = NodeTable;

/** The `node` table: one row per live (or not yet reaped) server node. */
export class NodesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Writes this node's heartbeat into its row; false when it has none (new, reaped or gone). */
  async beat(row: NodeRow): Promise<boolean> {
    const r = await this.db.updateTable('node').set({ last_heartbeat: row.last_heartbeat, address: row.address, version: row.version, started: row.started }).where('id', '=', row.id).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Creates this node's row (its membership starts); a row already there just gets the heartbeat. */
  async register(row: NodeRow): Promise<void> {
    try {
      await this.db.insertInto('node').values(row).execute();
    } catch {
      // Another write of the same node won the insert: its heartbeat is fresh either way.
      await this.db.updateTable('node').set({ last_heartbeat: row.last_heartbeat, started: row.started }).where('id', '=', row.id).execute();
    }
  }

  /** Deletes this node's row: it leaves the cluster (a drained shutdown), so nobody waits for it to time out. */
  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('node').where('id', '=', id).execute();
  }

  /** Of `taskIds`, those the database still holds as active (or rejected, not yet ended by its run) and `nodeId`'s. */
  async stillOwned(taskIds: number[], nodeId: string): Promise<Set<number>> {
    if (taskIds.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('task')
      .select('id')
      .where('id', 'in', taskIds)
      .where('node_id', '=', nodeId)
      .where('status', 'in', [...ACTIVE_STATUSES, 'rejected'])
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Of `taskIds` (task folders found on disk), those another node or runner may be running now:
   * active and not `nodeId`'s. Their folders are left alone (a task folder shared by mistake).
   */
  async activeElsewhere(taskIds: number[], nodeId: string): Promise<Set<number>> {
    const found = new Set<number>();
    for (let i = 0; i < taskIds.length; i += 500) {
      const rows = await this.db
        .selectFrom('task')
        .select('id')
        .where('id', 'in', taskIds.slice(i, i + 500))
        .where('status', 'in', ACTIVE_STATUSES)
        .where((eb) => eb.or([eb('node_id', 'is', null), eb('node_id', '!=', nodeId)]))
        .execute();
      for (const r of rows) found.add(r.id);
    }
    return found;
  }

  /** Nodes whose last heartbeat is older than `cutoff`, other than `self`. */
  stale(cutoff: string, self: string): Promise<NodeRow[]> {
    return this.db.selectFrom('node').selectAll().where('last_heartbeat', '<', cutoff).where('id', '!=', self).execute();
  }

  /**
   * Takes a dead node's row, only while it is still stale: of several live nodes that saw it
   * dead, exactly one gets `true` and acts on it.
   */
  async reap(id: string, cutoff: string): Promise<boolean> {
    const r = await this.db.deleteFrom('node').where('id', '=', id).where('last_heartbeat', '<', cutoff).executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  /** Every node, with the number of tasks each is running. */
  async list(): Promise<Array<NodeRow & { running_tasks: number }>> {
    const nodes = await this.db.selectFrom('node').selectAll().orderBy('started').orderBy('id').execute();
    const counts = await this.db
      .selectFrom('task')
      .select(['node_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('status', 'in', ACTIVE_STATUSES)
      .where('node_id', 'is not', null)
      .groupBy('node_id')
      .execute();
    const byNode = new Map(counts.map((c) => [c.node_id, Number(c.n)]));
    return nodes.map((n) => ({ ...n, running_tasks: byNode.get(n.id) ?? 0 }));
  }
}
