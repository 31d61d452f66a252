import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { engines, signedInUser, useTestApp, type Caller } from '../test/harness.js';
import { createDb } from './db.js';
import { migrateToLatest } from './migrate.js';
import { mysqlSpaceProbe, postgresSpaceProbe, sqliteSpaceProbe } from './space-probe.js';

// A really full SQLite database: PRAGMA max_page_count held at its current size makes SQLite
// refuse, with SQLITE_FULL, every write that needs a new page, as a full disk does.
const sqlite = engines.find((e) => e.name === 'sqlite')!;

describe('a full SQLite database', () => {
  const t = useTestApp(sqlite);
  const pages = (pragma: string) => Number(t().db.sqlite!.pragma(pragma, { simple: true }));
  /** Creates projects until one fails; answers the failed answer. */
  const writeUntilRefused = async (c: Caller) => {
    for (let i = 0; i < 1000; i++) {
      const res = await c.post('/api/projects', { name: `filler ${i} ${'x'.repeat(200)}` });
      if (res.statusCode !== 201) return res;
    }
    throw new Error('no write was refused');
  };

  it('answers 507 with a code on writes, keeps reads, is not ready, and recovers once there is room', async () => {
    const ctx = t();
    const c = await signedInUser(ctx, { admin: true });
    expect((await ctx.app.inject({ url: '/api/ready' })).statusCode).toBe(200);
    ctx.db.sqlite!.pragma(`max_page_count = ${pages('page_count')}`);
    try {
      const refused = await writeUntilRefused(c);
      expect(refused.statusCode, refused.body).toBe(507);
      expect(refused.json()).toEqual({ error: 'The database or its disk is full', code: 'database_full' });
      // Writes in a transaction too (SQLite rolls those back itself): the same answer, never a 500.
      for (let i = 0; i < 5; i++) {
        const again = await c.post('/api/projects', { name: `more ${i} ${'y'.repeat(200)}` });
        expect(again.statusCode, again.body).toBe(507);
      }
      // Reads go on.
      const list = await c.get('/api/projects');
      expect(list.statusCode).toBe(200);
      expect(list.json<unknown[]>().length).toBeGreaterThan(0);
      // Signing in stores a session: it works while its row fits, and is never a 500.
      const login = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth: c.username, password: c.password } });
      expect([204, 507], login.body).toContain(login.statusCode);
      // Not ready, and says which check failed; liveness is fine.
      const ready = await ctx.app.inject({ url: '/api/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ code: 'not_ready', checks: { database: 'full', migrations: 'ok' } });
      expect((await ctx.app.inject({ url: '/api/health' })).statusCode).toBe(200);
      // Still full when asked again: the probe's own write is refused too.
      expect((await ctx.app.inject({ url: '/api/ready' })).statusCode).toBe(503);
    } finally {
      // Room again (as when the disk is cleared): the default limit.
      ctx.db.sqlite!.pragma('max_page_count = 4294967294');
    }
    // Ready again without any request writing first: readiness probes for room itself.
    const ready = await ctx.app.inject({ url: '/api/ready' });
    expect(ready.statusCode, ready.body).toBe(200);
    expect((await c.post('/api/projects', { name: 'after the disk was cleared' })).statusCode).toBe(201);
    // The probe left nothing behind.
    expect(ctx.db.sqlite!.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name LIKE 'gantry_space_probe%'").get()).toEqual({ n: 0 });
  });
});

describe('a write transaction on a full SQLite database', () => {
  it('fails with SQLITE_FULL, not the rollback SQLite made needless by rolling back itself', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-full-'));
    const d = createDb(`sqlite:${path.join(dir, 'full.sqlite')}`);
    try {
      await sql`CREATE TABLE filler (x TEXT)`.execute(d.db);
      d.sqlite!.pragma(`max_page_count = ${Number(d.sqlite!.pragma('page_count', { simple: true }))}`);
      const fill = async () => {
        for (let i = 0; i < 1000; i++) await d.db.transaction().execute((trx) => sql`INSERT INTO filler VALUES (${'x'.repeat(300)})`.execute(trx));
      };
      await expect(fill()).rejects.toMatchObject({ code: 'SQLITE_FULL' });
      expect(await d.health.storage()).toBe('full');
    } finally {
      await d.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each(engines)('the probe for room ($name)', (engine) => {
  it('writes and rolls back on a database with room, clearing a full state and leaving nothing behind', async () => {
    const database = await engine.create();
    const d = createDb(database.url);
    try {
      await migrateToLatest(d);
      const tables = async () => (await d.db.introspection.getTables()).map((t) => t.name).sort();
      const before = await tables();
      const probe = engine.name === 'sqlite' ? sqliteSpaceProbe(d.sqlite!, database.dataDir) : engine.name === 'postgres' ? postgresSpaceProbe(d.db) : mysqlSpaceProbe(d.db);
      await expect(probe()).resolves.toBeUndefined();
      d.health.failed(Object.assign(new Error('disk full'), { code: engine.name === 'mysql' ? 'ER_RECORD_FILE_FULL' : engine.name === 'postgres' ? '53100' : 'SQLITE_FULL' }));
      expect(await d.health.storage()).toBe('ok');
      expect(await tables()).toEqual(before);
    } finally {
      await d.close();
      await database.drop();
    }
  });
});
