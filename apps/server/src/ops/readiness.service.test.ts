import { describe, expect, it } from 'vitest';
import { ReadinessService } from './readiness.service.js';

const migrations = ['001-a', '002-b'];
const repo = (over: Partial<{ ping: () => Promise<void>; appliedMigrations: () => Promise<string[]> }> = {}) => ({
  ping: async () => undefined,
  appliedMigrations: async () => [...migrations],
  ...over,
});

describe('ReadinessService', () => {
  it('is ready when every check passes', async () => {
    const r = await new ReadinessService({ repo: repo(), migrations, busConnected: () => true }).check();
    expect(r).toMatchObject({ ready: true, checks: { database: 'ok', migrations: 'ok', bus: 'ok' } });
  });

  it('is not ready while the node drains for a shutdown, and says so', async () => {
    let draining = false;
    const service = new ReadinessService({ repo: repo(), migrations, busConnected: () => true, draining: () => draining });
    expect((await service.check()).checks).toEqual({ database: 'ok', migrations: 'ok', bus: 'ok' });
    draining = true;
    expect(await service.check()).toMatchObject({ ready: false, checks: { database: 'ok', migrations: 'ok', bus: 'ok', shutdown: 'draining' } });
  });

  it('names a disconnected bus', async () => {
    const r = await new ReadinessService({ repo: repo(), migrations, busConnected: () => false }).check();
    expect(r).toMatchObject({ ready: false, checks: { database: 'ok', migrations: 'ok', bus: 'not connected' } });
  });

  it('counts a database that does not answer in time as failed', async () => {
    const hang = () => new Promise<void>(() => undefined);
    const r = await new ReadinessService({
      repo: repo({ ping: hang }),
      migrations,
      busConnected: () => true,
      timeoutMs: 20,
    }).check();
    expect(r).toMatchObject({ ready: false, checks: { database: 'failed', migrations: 'not checked', bus: 'ok' } });
    expect(String(r.failure)).toContain('no answer within 20 ms');
  });

  it('fails when the migration table cannot be read', async () => {
    const missing = async () => {
      throw new Error('no such table: kysely_migration');
    };
    const r = await new ReadinessService({
      repo: repo({ appliedMigrations: missing }),
      migrations,
      busConnected: () => true,
    }).check();
    expect(r).toMatchObject({ ready: false, checks: { database: 'ok', migrations: 'failed' } });
  });

  it('names a database whose writes fail for lack of room', async () => {
    const r = await new ReadinessService({ repo: repo(), migrations, storage: async () => 'full', busConnected: () => true }).check();
    expect(r).toMatchObject({ ready: false, checks: { database: 'full', migrations: 'ok', bus: 'ok' } });
  });
});
