import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { engines, type Caller } from '../test/harness.js';
import type { TestDatabase } from '../test/engines.js';
import { assertServerBuilt, signInNode, sleep, startNode, stopNode, type ServerNode } from '../test/server-process.js';
import { startTcpProxy, type TcpProxy } from '../test/tcp-proxy.js';
import { setupTemplate } from '../test/tasks.js';

// A real server process running Bash tasks while its database goes away for a moment (a proxy
// the test cuts; the shared database server is never touched): no line is lost or stored twice,
// and no task is left `running`. The test reads the database directly, around the proxy.
const pooled = engines.filter((e) => e.name !== 'sqlite');

interface Direct {
  status(id: number): Promise<string>;
  log(id: number): Promise<Array<{ seq: number; output: string }>>;
  close(): Promise<void>;
}

async function direct(engine: string, url: string): Promise<Direct> {
  if (engine === 'postgres') {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    return {
      status: async (id) =>
        (await c.query<{ status: string }>('SELECT status FROM task WHERE id = $1', [id])).rows[0]!.status,
      log: async (id) =>
        (
          await c.query<{ seq: number; output: string }>(
            'SELECT seq, output FROM task_output WHERE task_id = $1 ORDER BY seq',
            [id],
          )
        ).rows,
      close: () => c.end(),
    };
  }
  const c = await mysql.createConnection(url);
  return {
    status: async (id) =>
      ((await c.query<mysql.RowDataPacket[]>('SELECT status FROM task WHERE id = ?', [id]))[0][0] as { status: string })
        .status,
    log: async (id) =>
      (
        await c.query<mysql.RowDataPacket[]>('SELECT seq, output FROM task_output WHERE task_id = ? ORDER BY seq', [id])
      )[0] as Array<{ seq: number; output: string }>,
    close: () => c.end(),
  };
}

// Needs a pooled engine (GANTRY_TEST_PG_URL / GANTRY_TEST_MYSQL_URL); the suite is listed as skipped without one.
describe.skipIf(pooled.length === 0)('through a database outage', () => {
  describe.each(pooled)('task logs and final status through a database outage ($name)', (engine) => {
    let db: TestDatabase;
    let proxy: TcpProxy;
    let node: ServerNode;
    let c: Caller;
    let sql: Direct;
    let projectId: number;
    const flagDir = fs.mkdtempSync(path.join('/var/tmp', 'gantry-flag-'));
    fs.chmodSync(flagDir, 0o755);

    const waitFor = async (what: string, fn: () => Promise<boolean>, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!(await fn())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${node.output.join('')}`);
        await sleep(50);
      }
    };
    const post = async (script: string, env: Record<string, string> = {}) => {
      const { templateId } = await setupTemplate(
        c,
        projectId,
        gitRepo({ 'run.sh': script }),
        { app: 'bash', playbook: 'run.sh' },
        { env: JSON.stringify(env) },
      );
      const r = await c.post(`/api/project/${projectId}/tasks`, { template_id: templateId });
      expect(r.statusCode, r.body).toBe(201);
      return r.json<{ id: number }>().id;
    };
    const finalStatus = async (id: number) => {
      let status = '';
      await waitFor(
        `task ${id} to end`,
        async () => !['waiting', 'starting', 'running', 'stopping'].includes((status = await sql.status(id))),
      );
      return status;
    };
    /** The task's `line N` lines, each number once and in order, and the whole log numbered 1..n without a gap. */
    const expectEveryLine = async (id: number, n: number) => {
      const log = await sql.log(id);
      expect(log.map((l) => Number(l.seq))).toEqual(log.map((_, i) => i + 1));
      expect(log.filter((l) => l.output.startsWith('line ')).map((l) => l.output)).toEqual(
        Array.from({ length: n }, (_, i) => `line ${i + 1}`),
      );
      return log.map((l) => l.output);
    };

    beforeAll(async () => {
      assertServerBuilt();
      db = await engine.create();
      sql = await direct(engine.name, db.url);
      const target = new URL(db.url);
      proxy = await startTcpProxy(target.hostname, Number(target.port || (engine.name === 'postgres' ? 5432 : 3306)));
      node = await startNode(
        `log-outage-${engine.name}`,
        { url: proxy.url(db.url) },
        randomBytes(32).toString('base64'),
      );
      c = await signInNode(node.base);
      const p = await c.post('/api/projects', { name: 'log outage' });
      projectId = p.json<{ id: number }>().id;
    }, 60_000);

    afterAll(async () => {
      if (process.env.SHOW_OUTPUT) console.log(node?.output.join(''));
      if (node) await stopNode(node, 'SIGKILL');
      await proxy?.close();
      await sql?.close();
      if (node) fs.rmSync(node.dataDir, { recursive: true, force: true });
      fs.rmSync(flagDir, { recursive: true, force: true });
      await db?.drop();
    });

    it('stores every line once and in order when the database goes away mid-run, and the task still succeeds', async () => {
      const n = 60;
      const id = await post(`for i in $(seq 1 ${n}); do echo "line $i"; sleep 0.05; done\n`);
      await waitFor(
        'the first lines',
        async () => (await sql.log(id)).filter((l) => l.output.startsWith('line ')).length >= 8,
      );
      proxy.cut();
      await sleep(1500);
      proxy.restore();
      expect(await finalStatus(id)).toBe('success');
      const log = await expectEveryLine(id, n);
      expect(log.join('\n')).toMatch(/could not store this task's log for about \d+ s; every line was kept/);
      expect(log.at(-1)).toBe(`Task #${id} finished: success`);
      expect(node.proc.exitCode).toBeNull();
    }, 40_000);

    it('ends a task whose last lines and final status met the outage once the database is back, instead of leaving it running', async () => {
      const flag = path.join(flagDir, 'go');
      const id = await post(
        'echo waiting; while [ ! -f "$WAIT_FLAG" ]; do sleep 0.05; done\nfor i in $(seq 1 20); do echo "line $i"; done\n',
        { WAIT_FLAG: flag },
      );
      await waitFor(
        'the task to run',
        async () => (await sql.status(id)) === 'running' && (await sql.log(id)).some((l) => l.output === 'waiting'),
      );
      proxy.cut();
      fs.writeFileSync(flag, '');
      // The process ends now; its last lines and its final status cannot be stored yet.
      await sleep(1500);
      expect(await sql.status(id)).toBe('running');
      proxy.restore();
      expect(await finalStatus(id)).toBe('success');
      const log = await expectEveryLine(id, 20);
      expect(log.at(-1)).toBe(`Task #${id} finished: success`);
    }, 40_000);
  });
});
