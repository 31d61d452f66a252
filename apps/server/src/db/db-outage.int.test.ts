import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { engines, type Caller } from '../test/harness.js';
import type { TestDatabase } from '../test/engines.js';
import { assertServerBuilt, signInNode, sleep, startNode, stopNode, type ServerNode } from '../test/server-process.js';
import { startTcpProxy, type TcpProxy } from '../test/tcp-proxy.js';
import { setupTemplate, waitForTask } from '../test/tasks.js';

// A real server process whose database goes away and comes back: through a proxy the test cuts
// (the shared database server is never touched), and by the database ending every connection of
// the test's own database (pg_terminate_backend, KILL), as a restart or a failover does.
const pooled = engines.filter((e) => e.name !== 'sqlite');

/** Kills every connection to the test's own database from the database's side (never others'). */
async function killConnections(engine: string, url: string): Promise<number> {
  const name = new URL(url).pathname.slice(1);
  if (engine === 'postgres') {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const r = await c.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    await c.end();
    return r.rowCount ?? 0;
  }
  const c = await mysql.createConnection(url);
  const [rows] = await c.query<mysql.RowDataPacket[]>(
    'SELECT id FROM information_schema.processlist WHERE db = ? AND id <> connection_id()',
    [name],
  );
  for (const r of rows) await c.query(`KILL ${Number(r.id)}`).catch(() => undefined);
  await c.end();
  return rows.length;
}

// Needs a pooled engine (GANTRY_TEST_PG_URL / GANTRY_TEST_MYSQL_URL); the suite is listed as skipped without one.
describe.skipIf(pooled.length === 0)('through a database outage', () => {
  describe.each(pooled)('a server node through a database outage ($name)', (engine) => {
    let db: TestDatabase;
    let proxy: TcpProxy;
    let node: ServerNode;
    let c: Caller;
    let projectId: number;
    let templateId: number;

    const get = (url: string) => fetch(`${node.base}${url}`);
    const waitReady = async () => {
      const deadline = Date.now() + 20_000;
      while (
        (await get('/api/ready').then(
          (r) => r.status,
          () => 0,
        )) !== 200
      ) {
        if (Date.now() > deadline) throw new Error(`not ready again: ${node.output.join('')}`);
        await sleep(100);
      }
    };
    /** The node is alive, signs in, saves, and runs a task posted now to the end. */
    const worksAgain = async () => {
      expect(node.proc.exitCode).toBeNull();
      await waitReady();
      c = await signInNode(node.base);
      const p = await c.post('/api/projects', { name: `after ${randomBytes(3).toString('hex')}` });
      expect(p.statusCode, p.body).toBe(201);
      const task = await c.post(`/api/project/${projectId}/tasks`, { template_id: templateId });
      expect(task.statusCode, task.body).toBe(201);
      const done = await waitForTask(c, projectId, task.json<{ id: number }>().id, undefined, 20_000);
      expect(done.status).toBe('success');
    };

    beforeAll(async () => {
      assertServerBuilt();
      db = await engine.create();
      const target = new URL(db.url);
      proxy = await startTcpProxy(target.hostname, Number(target.port || (engine.name === 'postgres' ? 5432 : 3306)));
      // A heartbeat a second (a third of the node timeout): background writes fail during the outage too.
      node = await startNode(`outage-${engine.name}`, { url: proxy.url(db.url) }, randomBytes(32).toString('base64'), {
        GANTRY_NODE_TIMEOUT_SECONDS: '3',
      });
      c = await signInNode(node.base);
      const p = await c.post('/api/projects', { name: 'outage' });
      projectId = p.json<{ id: number }>().id;
      ({ templateId } = await setupTemplate(c, projectId, gitRepo({ 'run.sh': 'echo ran\n' }), {
        app: 'bash',
        playbook: 'run.sh',
      }));
    }, 60_000);

    afterAll(async () => {
      if (node) await stopNode(node, 'SIGKILL');
      await proxy?.close();
      if (node) fs.rmSync(node.dataDir, { recursive: true, force: true });
      await db?.drop();
    });

    it('answers 503 with Retry-After at once while the database is away, and works again once it is back', async () => {
      proxy.cut();
      const started = Date.now();
      const res = await c.get('/api/projects');
      expect(res.statusCode, res.body).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toEqual({ error: 'The database is unreachable', code: 'database_unavailable' });
      // Signing in needs the database too: the same answer, not a 500.
      const login = await fetch(`${node.base}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ auth: 'cluster-admin', password: 'cluster-pass-1' }),
      });
      expect(login.status).toBe(503);
      // Within the connect timeout (5 s), never a hang; generous against a loaded machine.
      expect(Date.now() - started).toBeLessThan(12_000);
      const ready = await get('/api/ready');
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { checks: { database: string } }).checks.database).toBe('failed');
      // Liveness stays up: the process is fine, only its database is away.
      expect((await get('/api/health')).status).toBe(200);
      expect(await (await get('/api/ping')).text()).toBe('pong');
      // Idle pooled connections, the bus and the heartbeat fail meanwhile; the process lives on.
      await sleep(1_500);
      expect(node.proc.exitCode).toBeNull();
      proxy.restore();
      await worksAgain();
    }, 60_000);

    it('lives through the database ending every connection of its database', async () => {
      expect(await killConnections(engine.name, db.url)).toBeGreaterThan(0);
      await sleep(300);
      expect(node.proc.exitCode).toBeNull();
      await worksAgain();
    }, 60_000);
  });
});
