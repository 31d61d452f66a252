import { ACTIVE_STATUSES } from '@gantry/contracts';
import type { Kysely } from 'kysely';
import type { Database, NodeTable } from '../../db/types.js';

export type NodeRow = NodeTable;

/** The `node` table: one row per live (or not yet reaped) server node. */
export class NodesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Writes this node's heartbeat, creating its row when it is new or was reaped. */
  async heartbeat(row: NodeRow): Promise<void> {
    const r = await this.db.updateTable('node').set({ last_heartbeat: row.last_heartbeat, address: row.address, version: row.version, started: row.started }).where('id', '=', row.id).executeTakeFirst();
    if (Number(r.numUpdatedRows) > 0) return;
    try {
      await this.db.insertInto('node').values(row).execute();
    } catch {
      // Another write of the same node won the insert: its heartbeat is fresh either way.
      await this.db.updateTable('node').set({ last_heartbeat: row.last_heartbeat }).where('id', '=', row.id).execute();
    }
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
