import { describe, expect, it } from 'vitest';
import { ClusterService, type ClusterDeps } from './cluster.service.js';
import type { NodeRow, NodesRepository } from './nodes.repository.js';

/** The node table in memory, plus which tasks the database holds as whose. */
function fixture() {
  const rows = new Map<string, NodeRow>();
  const owned = new Map<number, string>();
  const nodes = {
    async beat(row: NodeRow) {
      if (!rows.has(row.id)) return false;
      rows.set(row.id, row);
      return true;
    },
    async register(row: NodeRow) {
      rows.set(row.id, row);
    },
    async remove(id: string) {
      rows.delete(id);
    },
    async stale() {
      return [];
    },
    async stillOwned(ids: number[], nodeId: string) {
      return new Set(ids.filter((id) => owned.get(id) === nodeId));
    },
  } as unknown as NodesRepository;
  let now = Date.parse('2026-01-01T00:00:00.000Z');
  const running = [1, 2];
  const kills: Array<{ ids: number[]; line?: string }> = [];
  const fenced: number[] = [];
  const deps: ClusterDeps = {
    nodes,
    clock: { now: () => new Date(now) },
    nodeId: 'a',
    address: 'a:1',
    version: 'test',
    timeoutSeconds: 3,
    failNode: async () => 0,
    kick: () => undefined,
    fence: { runningIds: () => [...running], kill: (ids, line) => kills.push({ ids, line }) },
    onFenced: (n) => fenced.push(n),
  };
  for (const id of running) owned.set(id, 'a');
  return { rows, owned, kills, fenced, cluster: new ClusterService(deps), advance: (ms: number) => (now += ms) };
}

describe('ClusterService fencing', () => {
  it('registers on its first heartbeat without fencing anything', async () => {
    const f = fixture();
    await f.cluster.start();
    f.cluster.stop();
    expect(f.rows.get('a')?.started).toBe('2026-01-01T00:00:00.000Z');
    expect(f.kills).toEqual([]);
  });

  it('finding its row gone (reaped by another node): kills its runs at once and joins again as a new member', async () => {
    const f = fixture();
    await f.cluster.start();
    f.cluster.stop();
    // Frozen past the timeout: another node deleted the row and failed both tasks.
    f.rows.delete('a');
    f.owned.clear();
    f.advance(60_000);
    await f.cluster.tick();
    expect(f.kills[0]!.ids).toEqual([1, 2]);
    expect(f.kills[0]!.line).toMatch(/declared dead/);
    expect(f.fenced).toEqual([2]);
    expect(f.rows.get('a')?.started).toBe('2026-01-01T00:01:00.000Z');
  });

  it('kills a run whose task the database no longer holds as this node’s, and only that one', async () => {
    const f = fixture();
    await f.cluster.start();
    f.cluster.stop();
    f.owned.set(2, 'b');
    await f.cluster.tick();
    expect(f.kills).toEqual([{ ids: [2], line: undefined }]);
    expect(f.fenced).toEqual([]);
  });

  it('leaving deletes its row; nothing writes it again', async () => {
    const f = fixture();
    await f.cluster.start();
    await f.cluster.leave();
    expect(f.rows.has('a')).toBe(false);
  });
});
