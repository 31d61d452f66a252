import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { SESSION_COOKIE, type WsMessage } from '@gantry/contracts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { engines, type Caller } from '../../test/harness.js';
import type { TestDatabase } from '../../test/engines.js';
import { assertServerBuilt, signInNode as signIn, sleep, startNode as startNodeWith, stopNode, type ServerNode as Node } from '../../test/server-process.js';
import { setupTemplate } from '../../test/tasks.js';
import { waitFor } from '../../test/wait.js';

// Two (or three) real server processes on one PostgreSQL database, as an operator runs them:
// the built server (`npm run build` first; `npm test` does), each with its own data folder and
// port, the same master key, a short node timeout so a dead node is found within seconds.
interface ClientSocket {
  on(event: 'message', fn: (data: Buffer) => void): void;
  once(event: 'open', fn: () => void): void;
  send(data: string): void;
  close(): void;
}
const WebSocket = createRequire(import.meta.url)('ws') as new (url: string, options: { headers: Record<string, string> }) => ClientSocket;
const postgres = engines.find((e) => e.name === 'postgres');
const TIMEOUT_S = 3;
/** Nodes with a short node timeout, so a dead node is found within seconds. */
const startNode = (name: string, db: TestDatabase, secret: string, env: Record<string, string> = {}, dataDir?: string, port?: number) =>
  startNodeWith(name, db, secret, { GANTRY_NODE_TIMEOUT_SECONDS: String(TIMEOUT_S), ...env }, dataDir, port);

describe.skipIf(!postgres)('two server nodes on one PostgreSQL database', () => {
  let db: TestDatabase;
  let sql: pg.Client;
  const secret = randomBytes(32).toString('base64');
  const nodes: Node[] = [];
  let a: Node;
  let b: Node;

  beforeAll(async () => {
    assertServerBuilt();
    db = await postgres!.create();
    // One node first: it migrates the fresh database and creates the admin.
    a = await startNode('a', db, secret, { GANTRY_MAX_PARALLEL_TASKS: '1' });
    b = await startNode('b', db, secret, { GANTRY_MAX_PARALLEL_TASKS: '1' });
    nodes.push(a, b);
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 90_000);

  afterAll(async () => {
    await sql?.end();
    for (const n of nodes) await stopNode(n, 'SIGKILL');
    for (const n of nodes) fs.rmSync(n.dataDir, { recursive: true, force: true });
    await db?.drop();
  });

  const nodeOf = async (taskId: number) => (await sql.query<{ node_id: string | null; status: string }>('SELECT node_id, status FROM task WHERE id = $1', [taskId])).rows[0]!;
  const nodeIds = async () => {
    const ids = new Map<Node, string>();
    for (const n of [a, b]) ids.set(n, (await sql.query<{ id: string }>('SELECT id FROM node WHERE address = $1', [`127.0.0.1:${n.port}`])).rows[0]!.id);
    return ids;
  };
  const project = async (c: Caller, script: string, extra: Record<string, unknown> = {}) => {
    const p = await c.post('/api/projects', { name: `cluster ${randomBytes(3).toString('hex')}`, ...extra });
    expect(p.statusCode).toBe(201);
    const projectId = (p.json() as { id: number }).id;
    const s = await setupTemplate(c, projectId, gitRepo({ 'run.sh': script }), { app: 'bash', playbook: 'run.sh' });
    return { projectId, templateId: s.templateId };
  };
  const post = async (c: Caller, projectId: number, templateId: number) => {
    const r = await c.post(`/api/project/${projectId}/tasks`, { template_id: templateId });
    expect(r.statusCode, r.body).toBe(201);
    return (r.json() as { id: number }).id;
  };
  /** The node running a task once it runs, and the other one. */
  const placement = async (taskId: number) => {
    const row = await waitFor('the task to start', async () => {
      const r = await nodeOf(taskId);
      return r.status === 'running' ? r : null;
    });
    const ids = await nodeIds();
    const runner = ids.get(a) === row.node_id ? a : b;
    return { runner, other: runner === a ? b : a };
  };

  it('lists both nodes to an admin, each with its heartbeat', async () => {
    const c = await signIn(a.base);
    const res = await c.get('/api/nodes');
    expect(res.statusCode).toBe(200);
    const list = res.json() as Array<{ address: string; self: boolean; heartbeat_age_seconds: number; version: string }>;
    expect(list.map((n) => n.address).sort()).toEqual([`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`].sort());
    expect(list.find((n) => n.self)!.address).toBe(`127.0.0.1:${a.port}`);
    for (const n of list) expect(n.heartbeat_age_seconds).toBeLessThan(TIMEOUT_S);
  });

  it('a console on one node receives the live lines and the final status of a task the other node runs', async () => {
    const ca = await signIn(a.base);
    const { projectId, templateId } = await project(ca, 'for i in $(seq 1 40); do echo "line $i"; sleep 0.05; done\n');
    const id = await post(ca, projectId, templateId);
    const { other } = await placement(id);
    const co = await signIn(other.base);
    const ws = new WebSocket(`ws://127.0.0.1:${other.port}/api/ws?logs=subscribe`, { headers: { cookie: `${SESSION_COOKIE}=${co.cookie}` } });
    const seen: number[] = [];
    let final: string | null = null;
    ws.on('message', (data: Buffer) => {
      const m = JSON.parse(data.toString()) as WsMessage;
      if (m.type === 'logs' && m.task_id === id) m.lines.forEach((_, i) => seen.push(m.from_seq + i));
      if (m.type === 'update' && m.task_id === id && ['success', 'error'].includes(m.status)) final = m.status;
    });
    await new Promise<void>((r) => ws.once('open', () => r()));
    ws.send(JSON.stringify({ type: 'subscribe', task_id: id }));
    await waitFor('the final status on the other node', async () => final);
    ws.close();
    expect(final).toBe('success');
    // Live lines arrived in order, and the last of them before the final status.
    expect(seen.length).toBeGreaterThan(10);
    expect(seen).toEqual([...seen].sort((x, y) => x - y));
    const last = (await sql.query<{ m: number }>('SELECT max(seq) AS m FROM task_output WHERE task_id = $1', [id])).rows[0]!.m;
    expect(seen.at(-1)).toBe(last);
  });

  it('stop sent to one node stops the task the other node runs within a second', async () => {
    const ca = await signIn(a.base);
    const { projectId, templateId } = await project(ca, 'echo started; sleep 60\n');
    const id = await post(ca, projectId, templateId);
    const { other } = await placement(id);
    const co = await signIn(other.base);
    const t0 = Date.now();
    expect((await co.post(`/api/project/${projectId}/tasks/${id}/stop`, {})).statusCode).toBe(204);
    await waitFor('stopped', async () => (await nodeOf(id)).status === 'stopped', 5_000);
    expect(Date.now() - t0).toBeLessThan(1_500);
  });

  it('confirm sent to one node lets the other node go on with its terraform apply', async () => {
    const ca = await signIn(a.base);
    const p = await ca.post('/api/projects', { name: `tf ${randomBytes(3).toString('hex')}` });
    const projectId = (p.json() as { id: number }).id;
    const s = await setupTemplate(ca, projectId, gitRepo({ 'infra/main.tf': 'resource "terraform_data" "x" {\n  input = "cluster"\n}\n' }), { app: 'terraform', playbook: 'infra' });
    const id = await post(ca, projectId, s.templateId);
    await waitFor('the plan to wait for confirmation', async () => (await nodeOf(id)).status === 'waiting_confirmation', 60_000);
    const ids = await nodeIds();
    const runner = ids.get(a) === (await nodeOf(id)).node_id ? a : b;
    const other = runner === a ? b : a;
    const co = await signIn(other.base);
    expect((await co.post(`/api/project/${projectId}/tasks/${id}/confirm`, {})).statusCode).toBe(204);
    await waitFor('the apply to finish', async () => ['success', 'error'].includes((await nodeOf(id)).status), 60_000);
    expect((await nodeOf(id)).status).toBe('success');
    const log = (await sql.query<{ output: string }>('SELECT output FROM task_output WHERE task_id = $1 ORDER BY seq', [id])).rows.map((r) => r.output).join('\n');
    expect(log).toMatch(/Apply complete! Resources: 1 added/);
  }, 120_000);

  it('a task queued on a node at its parallel limit is run by the other node', async () => {
    const cb = await signIn(b.base);
    const { projectId, templateId } = await project(cb, 'sleep 3\n');
    // Each node runs one task at a time: the second task, queued on the same node, can only start
    // at once if the other node hears of it.
    const first = await post(cb, projectId, templateId);
    await placement(first);
    const second = await post(cb, projectId, templateId);
    const t0 = Date.now();
    await placement(second);
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect((await nodeOf(first)).node_id).not.toBe((await nodeOf(second)).node_id);
    await waitFor('both done', async () => (await nodeOf(first)).status === 'success' && (await nodeOf(second)).status === 'success', 20_000);
  });

  it('kill -9 of a node: the other fails its running tasks, runs its waiting ones, and the dead node coming back changes nothing', async () => {
    // A third node takes the work alone first: three long tasks run there, three wait (the
    // project runs three at a time) while a and b sit idle.
    const c = await signIn(a.base);
    const p = await c.post('/api/projects', { name: `kill ${randomBytes(3).toString('hex')}`, max_parallel_tasks: 3 });
    expect(p.statusCode).toBe(201);
    const projectId = (p.json() as { id: number }).id;
    const long = await setupTemplate(c, projectId, gitRepo({ 'run.sh': 'echo working; sleep 120\n' }), { app: 'bash', playbook: 'run.sh' });
    const short = await setupTemplate(c, projectId, gitRepo({ 'run.sh': 'echo quick\n' }), { app: 'bash', playbook: 'run.sh' });
    // a and b stop claiming for a moment: only the victim may take these tasks.
    await stopNode(a);
    await stopNode(b);
    const victim = await startNode('victim', db, secret, { GANTRY_MAX_PARALLEL_TASKS: '10' });
    nodes.push(victim);
    const cv = await signIn(victim.base);
    const running: number[] = [];
    for (let i = 0; i < 3; i++) running.push(await post(cv, projectId, long.templateId));
    await waitFor('three running', async () => (await Promise.all(running.map(nodeOf))).every((r) => r.status === 'running'));
    const waiting: number[] = [];
    for (let i = 0; i < 3; i++) waiting.push(await post(cv, projectId, short.templateId));
    await sleep(300);
    for (const id of waiting) expect((await nodeOf(id)).status).toBe('waiting');
    a = await startNode('a', db, secret, { GANTRY_MAX_PARALLEL_TASKS: '10' }, a.dataDir, a.port);
    nodes.push(a);
    await sleep(500);
    for (const id of waiting) expect((await nodeOf(id)).status).toBe('waiting');

    const killedAt = Date.now();
    await stopNode(victim, 'SIGKILL');
    await waitFor('the running tasks failed', async () => (await Promise.all(running.map(nodeOf))).every((r) => r.status === 'error'), (TIMEOUT_S + 10) * 1000);
    expect(Date.now() - killedAt).toBeLessThan((TIMEOUT_S + 6) * 1000);
    await waitFor('the waiting tasks run', async () => (await Promise.all(waiting.map(nodeOf))).every((r) => r.status === 'success'), 30_000);
    const victimId = (await sql.query<{ node_id: string }>('SELECT node_id FROM task WHERE id = $1', [running[0]])).rows[0]!.node_id;
    for (const id of running) {
      const lines = (await sql.query<{ output: string }>('SELECT output FROM task_output WHERE task_id = $1 ORDER BY seq', [id])).rows.map((r) => r.output);
      expect(lines.at(-1)).toBe(`Node ${victimId} stopped answering; the task was failed.`);
    }
    const before = (await sql.query('SELECT id, status, "end" FROM task WHERE id = ANY($1) ORDER BY id', [[...running, ...waiting]])).rows;
    const linesBefore = (await sql.query<{ n: string }>('SELECT count(*) AS n FROM task_output WHERE task_id = ANY($1)', [running])).rows[0]!.n;

    // The dead node comes back (same data folder, same node id): it changes none of them.
    const back = await startNode('victim', db, secret, {}, victim.dataDir, victim.port);
    nodes.push(back);
    await sleep(1_500);
    const after = (await sql.query('SELECT id, status, "end" FROM task WHERE id = ANY($1) ORDER BY id', [[...running, ...waiting]])).rows;
    expect(after).toEqual(before);
    expect((await sql.query<{ n: string }>('SELECT count(*) AS n FROM task_output WHERE task_id = ANY($1)', [running])).rows[0]!.n).toBe(linesBefore);
    b = back;
  }, 120_000);
});
