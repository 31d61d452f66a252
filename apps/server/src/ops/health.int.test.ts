import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { MIGRATION_NAMES } from '../db/migrate.js';
import { engines, useTestApp } from '../test/harness.js';

describe.each(engines)('health and readiness ($name)', (engine) => {
  // Metrics on without a token here: open to any scraper.
  const t = useTestApp(engine, { GANTRY_METRICS: 'true' });
  const get = (url: string, headers: Record<string, string> = {}) => t().app.inject({ url, headers });

  it('/api/health answers while the process is up, without signing in', async () => {
    const res = await get('/api/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await get('/api/ping')).body).toBe('pong');
  });

  it('/api/ready answers 200 with its checks', async () => {
    const res = await get('/api/ready');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', bus: 'ok' } });
  });

  it('/metrics is open to any scraper when no token is set, with the pool in use', async () => {
    const res = await get('/metrics');
    expect(res.statusCode).toBe(200);
    if (engine.name === 'sqlite') expect(res.body).toMatch(/^gantry_db_pool_connections\{state="total"\} 1$/m);
    else expect(res.body).toMatch(/^gantry_db_pool_connections\{state="idle"\} \d+$/m);
  });

  it('/api/ready answers 503 while a migration is missing', async () => {
    const { db } = t();
    const last = MIGRATION_NAMES.at(-1)!;
    const { rows } = await sql<{
      timestamp: string;
    }>`select timestamp from kysely_migration where name = ${last}`.execute(db.db);
    await sql`delete from kysely_migration where name = ${last}`.execute(db.db);
    try {
      const res = await get('/api/ready');
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        status: 'unavailable',
        error: 'Not ready: migrations',
        code: 'not_ready',
        checks: { database: 'ok', migrations: `not applied: ${last}`, bus: 'ok' },
      });
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${last}, ${rows[0]!.timestamp})`.execute(db.db);
    }
    expect((await get('/api/ready')).statusCode).toBe(200);
  });

  // Last: the database stays closed (the harness closes it again, which is harmless).
  it('/api/ready answers 503 once the database is closed; /api/health still 200', async () => {
    await t().db.close();
    const res = await get('/api/ready');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      status: 'unavailable',
      error: 'Not ready: database',
      code: 'not_ready',
      checks: { database: 'failed', migrations: 'not checked', bus: 'ok' },
    });
    expect((await get('/api/health')).statusCode).toBe(200);
    // Scrapes go on without the task counts.
    const metrics = await get('/metrics');
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).not.toMatch(/^gantry_tasks\{/m);
  });
});
