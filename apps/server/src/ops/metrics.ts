import { isFinished, type WsMessage } from '@gantry/contracts';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type GaugeConfiguration } from 'prom-client';
import type { LogBatch } from '../realtime/bus.js';
import type { OpsRepository, TaskCount } from './ops.repository.js';

/** The pool behind a PostgreSQL database (pg.Pool's counters). */
export interface PoolStats {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

export interface MetricsDeps {
  repo: Pick<OpsRepository, 'taskCounts'>;
  bus: {
    onMessage(fn: (m: WsMessage) => void): () => void;
    onLines(fn: (b: LogBatch) => void): () => void;
  };
  /** Open WebSocket connections on this node. */
  wsClients: () => number;
  /** PostgreSQL: its pool; SQLite: `single` (one connection); other engines: nothing reported. */
  pool: PoolStats | 'single' | undefined;
  /** Told when a scrape could not count tasks (the scrape goes on without those samples). */
  onError?: (e: unknown) => void;
}

/** One node's Prometheus registry, with what the HTTP hook and /metrics need. */
export interface Metrics {
  readonly registry: Registry;
  /** One answered HTTP request; `route` is the route's pattern (never the raw URL) or `unmatched`. */
  observeRequest(method: string, route: string, statusCode: number, seconds: number): void;
  /**
   * Adds a gauge to this registry, computed at scrape time by its `collect` (e.g. a node's
   * heartbeat age); names should start with `gantry_`.
   */
  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L>;
  /** The Prometheus text exposition of every metric. */
  text(): Promise<string>;
  readonly contentType: string;
  /** Stops listening to the bus (the app is closing). */
  close(): void;
}

/** Tasks take seconds to hours. */
const TASK_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600];
/** Task ids whose duration was observed, so a repeated final frame is not counted twice. */
const SEEN_LIMIT = 1_000;

/**
 * A fresh registry per app (tests start many apps in one process; the global registry would mix
 * them): task, queue, log, socket, HTTP and pool metrics prefixed `gantry_`, plus prom-client's
 * default process metrics under their usual names so stock Node.js dashboards work.
 */
export function createMetrics(d: MetricsDeps): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  // One query per scrape: a scrape calls every collect at once, so the gauges (and any scrape
  // arriving meanwhile) share the query in flight.
  let counting: Promise<TaskCount[]> | undefined;
  const taskCounts = (): Promise<TaskCount[]> => {
    counting ??= d.repo
      .taskCounts()
      .catch((e: unknown) => {
        d.onError?.(e);
        return [];
      })
      .finally(() => {
        counting = undefined;
      });
    return counting;
  };

  new Gauge({
    name: 'gantry_tasks',
    help: 'Tasks in the database by status and app (counted at scrape time).',
    labelNames: ['status', 'app'],
    registers,
    async collect() {
      const rows = await taskCounts();
      this.reset();
      for (const r of rows) this.set({ status: r.status, app: r.app }, r.count);
    },
  });
  new Gauge({
    name: 'gantry_task_queue_length',
    help: 'Tasks waiting for a run slot.',
    registers,
    async collect() {
      const rows = await taskCounts();
      this.set(rows.filter((r) => r.status === 'waiting').reduce((sum, r) => sum + r.count, 0));
    },
  });

  const duration = new Histogram({
    name: 'gantry_task_duration_seconds',
    help: 'Run time of finished tasks (start to end), by final status.',
    labelNames: ['status'],
    buckets: TASK_BUCKETS,
    registers,
  });
  const seen = new Set<number>();
  const lines = new Counter({ name: 'gantry_task_log_lines_total', help: 'Task log lines stored.', registers });
  const unsubscribe = [
    d.bus.onMessage((m) => {
      if (m.type !== 'update' || !isFinished(m.status) || !m.start || !m.end || seen.has(m.task_id)) return;
      const seconds = (Date.parse(m.end) - Date.parse(m.start)) / 1000;
      if (!Number.isFinite(seconds) || seconds < 0) return;
      seen.add(m.task_id);
      if (seen.size > SEEN_LIMIT) seen.delete(seen.values().next().value!);
      duration.observe({ status: m.status }, seconds);
    }),
    d.bus.onLines((b) => lines.inc(b.lines.length)),
  ];

  new Gauge({
    name: 'gantry_websocket_clients',
    help: 'Open WebSocket connections on this node.',
    registers,
    collect() {
      this.set(d.wsClients());
    },
  });

  const http = new Histogram({
    name: 'gantry_http_request_duration_seconds',
    help: 'HTTP request duration by route pattern, method and status code.',
    labelNames: ['method', 'route', 'status_code'],
    registers,
  });

  const pool = d.pool;
  if (pool) {
    new Gauge({
      name: 'gantry_db_pool_connections',
      help: 'Database connections held by this node, by state (SQLite: one connection).',
      labelNames: ['state'],
      registers,
      collect() {
        if (pool === 'single') {
          this.set({ state: 'total' }, 1);
          return;
        }
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
      },
    });
    if (pool !== 'single') {
      new Gauge({
        name: 'gantry_db_pool_waiting_clients',
        help: 'Queries waiting for a free database connection.',
        registers,
        collect() {
          this.set(pool.waitingCount);
        },
      });
    }
  }

  return {
    registry,
    contentType: registry.contentType,
    observeRequest: (method, route, statusCode, seconds) =>
      http.observe({ method, route, status_code: String(statusCode) }, seconds),
    gauge: (config) => new Gauge({ ...config, registers }),
    text: () => registry.metrics(),
    close: () => {
      for (const off of unsubscribe) off();
    },
  };
}
