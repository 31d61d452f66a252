import type { WsMessage } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { EventBus } from '../realtime/bus.js';
import { createMetrics, type MetricsDeps } from './metrics.js';
import type { TaskCount } from './ops.repository.js';

function setup(counts: () => Promise<TaskCount[]>, extra: Partial<MetricsDeps> = {}) {
  const bus = new EventBus();
  let queries = 0;
  const errors: unknown[] = [];
  const metrics = createMetrics({
    repo: {
      taskCounts: () => {
        queries += 1;
        return counts();
      },
    },
    bus,
    wsClients: () => 3,
    pool: undefined,
    onError: (e) => errors.push(e),
    ...extra,
  });
  return { bus, metrics, errors, queries: () => queries };
}

const update = (taskId: number, status: string, start: string | null, end: string | null): WsMessage => ({
  type: 'update',
  project_id: 1,
  task_id: taskId,
  template_id: 1,
  status,
  start,
  end,
  version: null,
});

describe('createMetrics', () => {
  it('counts tasks with one query per scrape and derives the queue from it', async () => {
    const s = setup(async () => [
      { status: 'waiting', app: 'bash', count: 2 },
      { status: 'waiting', app: 'ansible', count: 3 },
      { status: 'success', app: 'bash', count: 7 },
    ]);
    const text = await s.metrics.text();
    expect(s.queries()).toBe(1);
    expect(text).toContain('gantry_tasks{status="success",app="bash"} 7');
    expect(text).toContain('gantry_task_queue_length 5');
    expect(text).toContain('gantry_websocket_clients 3');
    expect(text).not.toContain('gantry_db_pool');
    s.metrics.close();
  });

  it('still answers when the database does not, without task samples', async () => {
    const s = setup(async () => {
      throw new Error('database is gone');
    });
    const text = await s.metrics.text();
    expect(text).not.toMatch(/^gantry_tasks\{/m);
    expect(s.errors).toHaveLength(1);
    s.metrics.close();
  });

  it('times each finished task once, from its start to its end', async () => {
    const s = setup(async () => []);
    s.bus.publish(update(1, 'running', '2024-01-01T00:00:00.000Z', null));
    s.bus.publish(update(1, 'success', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:42.000Z'));
    s.bus.publish(update(1, 'success', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:42.000Z'));
    // Canceled before it started: nothing to time.
    s.bus.publish(update(2, 'stopped', null, '2024-01-01T00:00:01.000Z'));
    s.bus.publishLines({
      project_id: 1,
      task_id: 1,
      lines: [1, 2].map((seq) => ({ task_id: 1, seq, time: 'x', output: 'a' })),
    });
    const text = await s.metrics.text();
    expect(text).toContain('gantry_task_duration_seconds_count{status="success"} 1');
    expect(text).toContain('gantry_task_duration_seconds_sum{status="success"} 42');
    expect(text).toContain('gantry_task_duration_seconds_bucket{le="30",status="success"} 0');
    expect(text).toContain('gantry_task_duration_seconds_bucket{le="60",status="success"} 1');
    expect(text).not.toContain('status="stopped"');
    expect(text).toContain('gantry_task_log_lines_total 2');
    s.metrics.close();
    s.bus.publish(update(3, 'success', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:01.000Z'));
    expect(await s.metrics.text()).toContain('gantry_task_duration_seconds_count{status="success"} 1');
  });

  it('reports a PostgreSQL pool and takes more gauges into the same registry', async () => {
    const s = setup(async () => [], { pool: { totalCount: 4, idleCount: 3, waitingCount: 1 } });
    s.metrics.gauge({
      name: 'gantry_node_heartbeat_age_seconds',
      help: 'Seconds since each node last beat.',
      labelNames: ['node'],
      collect() {
        this.set({ node: 'a' }, 2);
      },
    });
    const text = await s.metrics.text();
    expect(text).toContain('gantry_db_pool_connections{state="total"} 4');
    expect(text).toContain('gantry_db_pool_connections{state="idle"} 3');
    expect(text).toContain('gantry_db_pool_waiting_clients 1');
    expect(text).toContain('gantry_node_heartbeat_age_seconds{node="a"} 2');
    s.metrics.close();
  });
});
