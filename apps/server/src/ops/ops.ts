import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import type { Db } from '../db/db.js';
import { MIGRATION_NAMES } from '../db/migrate.js';
import { healthRoutes } from './health.routes.js';
import { createMetrics, type Metrics, type MetricsDeps } from './metrics.js';
import { metricsRoutes, registerHttpMetrics } from './metrics.routes.js';
import { OpsRepository } from './ops.repository.js';
import { ReadinessService } from './readiness.service.js';

export interface OpsDeps {
  config: Pick<Config, 'metrics'>;
  db: Db;
  /** `isConnected`: whether the bus reaches the other nodes; a bus without it has no others (connected). */
  bus: MetricsDeps['bus'] & { isConnected?(): boolean };
  /** Open WebSocket connections (the hub's size). */
  wsClients: () => number;
  /** Whether the node drains for a shutdown: then it is not ready. */
  draining?: () => boolean;
}

/**
 * What operators and load balancers call: GET /metrics (on with GANTRY_METRICS, timing every
 * request registered after this), GET /api/health and GET /api/ready. Answers the metrics, so
 * more gauges can join the same registry (`metrics.gauge(...)`); null while metrics are off.
 */
export async function registerOps(app: FastifyInstance, d: OpsDeps): Promise<Metrics | null> {
  const repo = new OpsRepository(d.db.db);
  const metrics = d.config.metrics.enabled
    ? createMetrics({
        repo,
        bus: d.bus,
        wsClients: d.wsClients,
        pool: d.db.poolStats ?? (d.db.engine === 'sqlite' ? 'single' : undefined),
        onError: (e) => app.log.warn({ err: e }, 'metrics: could not count tasks'),
      })
    : null;
  if (metrics) {
    registerHttpMetrics(app, metrics);
    app.addHook('onClose', async () => metrics.close());
  }
  await app.register(metricsRoutes(metrics, d.config.metrics.token));
  const readiness = new ReadinessService({
    repo,
    migrations: MIGRATION_NAMES,
    storage: () => d.db.health.storage(),
    busConnected: () => d.bus.isConnected?.() ?? true,
    draining: d.draining,
  });
  await app.register(healthRoutes(readiness), { prefix: '/api' });
  return metrics;
}
