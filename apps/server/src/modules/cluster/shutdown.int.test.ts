import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../db/db.js';
import { SHUTDOWN_LINE } from '../../engine/drain.js';
import { gitRepo } from '../../test/git-fixture.js';
import { engines, type Caller } from '../../test/harness.js';
import type { TestDatabase } from '../../test/engines.js';
import { assertServerBuilt, signInNode, sleep, startNode, stopNode, type ServerNode } from '../../test/server-process.js';
import { setupTemplate } from '../../test/tasks.js';
import { waitFor } from '../../test/wait.js';

// SIGTERM of a real server process (the built server: `npm run build` first): it drains instead
// of dying. Each engine gets one server with two task slots.

/** A script that says it started, then runs until SIGTERM, which its trap answers with a line. */
const TRAPPING = `trap 'echo "trap ran: cleaning up"; exit 0' TERM\necho long-started\nwhile true; do sleep 0.1; done\n`;
const secret = randomBytes(32).toString('base64');
const cleanup: Array<() => Promise<void>> = [];

afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

/** Sends `signal` and answers a promise of the exit code. */
function signal(n: ServerNode, sig: NodeJS.Signals): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => n.proc.once('exit', (code) => resolve(code)));
  n.proc.kill(sig);
  return exited;
}

async function project(c: Caller, scripts: Record<string, string>): Promise<{ projectId: number; templates: Record<string, number> }> {
  const p = await c.post('/api/projects', { name: `drain ${randomBytes(3).toString('hex')}` });
  expect(p.statusCode).toBe(201);
  const projectId = (p.json() as { id: number }).id;
  const templates: Record<string, number> = {};
  for (const [name, script] of Object.entries(scripts)) templates[name] = (await setupTemplate(c, projectId, gitRepo({ 'run.sh': script }), { app: 'bash', playbook: 'run.sh' })).templateId;
  return { projectId, templates };
}

async function post(c: Caller, projectId: number, templateId: number): Promise<number> {
  const r = await c.post(`/api/project/${projectId}/tasks`, { template_id: templateId });
  expect(r.statusCode, r.body).toBe(201);
  return (r.json() as { id: number }).id;
}

const statusOf = async (db: Db, id: number) => (await db.db.selectFrom('task').select(['status', 'node_id']).where('id', '=', id).executeTakeFirstOrThrow()).status;
const logOf = async (db: Db, id: number) => (await db.db.selectFrom('task_output').select('output').where('task_id', '=', id).orderBy('seq').execute()).map((r) => r.output);

async function fresh(engine: (typeof engines)[number]): Promise<TestDatabase> {
  assertServerBuilt();
  const tdb = await engine.create();
  cleanup.push(() => tdb.drop());
  return tdb;
}

describe.each(engines.map((e) => [e.name, e] as const))('SIGTERM drains the server (%s)', (_name, engine) => {
  it('lets a short task finish, stops a long one with SIGTERM (its trap runs), leaves waiting tasks, deregisters and exits 0', async () => {
    const tdb = await fresh(engine);
    const node = await startNode('drain', tdb, secret, { GANTRY_SHUTDOWN_TIMEOUT_SECONDS: '3', GANTRY_MAX_PARALLEL_TASKS: '2' }, tdb.dataDir);
    cleanup.push(() => stopNode(node, 'SIGKILL'));
    const db = createDb(tdb.url);
    cleanup.push(() => db.close());
    const c = await signInNode(node.base);
    const { projectId, templates } = await project(c, { short: 'sleep 1.5\necho short-done\n', long: TRAPPING });
    const short = await post(c, projectId, templates.short!);
    const long = await post(c, projectId, templates.long!);
    await waitFor('the long task to start', async () => (await logOf(db, long)).includes('long-started'));
    const queued = await post(c, projectId, templates.short!);
    await sleep(200);
    expect(await statusOf(db, queued)).toBe('waiting');

    const t0 = Date.now();
    const exited = signal(node, 'SIGTERM');
    // Still serving while it drains: the API answers and takes new tasks, which wait.
    await sleep(300);
    expect((await c.get('/api/ping')).statusCode).toBe(200);
    // A load balancer stops sending it traffic: it is not ready, and says why.
    const ready = await c.get('/api/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ checks: { shutdown: 'draining' } });
    const duringDrain = await post(c, projectId, templates.short!);
    expect(await exited).toBe(0);
    const took = Date.now() - t0;

    expect(await statusOf(db, short)).toBe('success');
    expect(await statusOf(db, long)).toBe('stopped');
    const lines = await logOf(db, long);
    expect(lines).toContain(SHUTDOWN_LINE);
    // The trap's line is stored, after the line saying why.
    expect(lines.indexOf('trap ran: cleaning up')).toBeGreaterThan(lines.indexOf(SHUTDOWN_LINE));
    expect(await statusOf(db, queued)).toBe('waiting');
    expect(await statusOf(db, duringDrain)).toBe('waiting');
    expect(await db.db.selectFrom('node').selectAll().execute()).toEqual([]);
    // It waited out the timeout for the long task (the bound above it is generous: a loaded machine).
    expect(took).toBeGreaterThanOrEqual(3_000);
    expect(took).toBeLessThan(20_000);
  }, 60_000);
});

describe('a second signal', () => {
  it('stops the running task at once, still recorded as stopped', async () => {
    const tdb = await fresh(engines[0]!);
    const node = await startNode('hurry', tdb, secret, {}, tdb.dataDir);
    cleanup.push(() => stopNode(node, 'SIGKILL'));
    const db = createDb(tdb.url);
    cleanup.push(() => db.close());
    const c = await signInNode(node.base);
    // Its trap takes long: only a SIGKILL ends it.
    const { projectId, templates } = await project(c, { stubborn: `trap 'echo "trap ran"; sleep 60' TERM\necho long-started\nwhile true; do sleep 0.1; done\n` });
    const id = await post(c, projectId, templates.stubborn!);
    await waitFor('the task to start', async () => (await logOf(db, id)).includes('long-started'));
    const exited = signal(node, 'SIGTERM');
    await sleep(300);
    const t0 = Date.now();
    node.proc.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(4_000);
    expect(await statusOf(db, id)).toBe('stopped');
    expect(await logOf(db, id)).toContain(SHUTDOWN_LINE);
  }, 60_000);
});

const postgres = engines.find((e) => e.name === 'postgres');

describe.skipIf(!postgres)('draining one of two nodes (PostgreSQL)', () => {
  it('leaves its waiting task to the other node, which runs it', async () => {
    const tdb = await fresh(postgres!);
    const a = await startNode('a', tdb, secret, { GANTRY_SHUTDOWN_TIMEOUT_SECONDS: '2', GANTRY_MAX_PARALLEL_TASKS: '1' });
    cleanup.push(async () => fs.rmSync(a.dataDir, { recursive: true, force: true }), () => stopNode(a, 'SIGKILL'));
    const db = createDb(tdb.url);
    cleanup.push(() => db.close());
    const c = await signInNode(a.base);
    const { projectId, templates } = await project(c, { long: TRAPPING, quick: 'echo quick-done\n' });
    const long = await post(c, projectId, templates.long!);
    await waitFor('the long task to start', async () => (await logOf(db, long)).includes('long-started'));
    const queued = await post(c, projectId, templates.quick!);
    const aId = (await db.db.selectFrom('node').select('id').executeTakeFirstOrThrow()).id;

    const exited = signal(a, 'SIGTERM');
    // A second node comes up while the first drains (a rolling restart): it takes the queue.
    const b = await startNode('b', tdb, secret);
    cleanup.push(async () => fs.rmSync(b.dataDir, { recursive: true, force: true }), () => stopNode(b, 'SIGKILL'));
    await waitFor('the waiting task to run on the other node', async () => (await statusOf(db, queued)) === 'success');
    expect(await exited).toBe(0);
    const row = await db.db.selectFrom('task').select('node_id').where('id', '=', queued).executeTakeFirstOrThrow();
    expect(row.node_id).not.toBe(aId);
    expect(await statusOf(db, long)).toBe('stopped');
    expect((await db.db.selectFrom('node').select('id').execute()).map((n) => n.id)).not.toContain(aId);
    await stopNode(b);
  }, 60_000);
});
