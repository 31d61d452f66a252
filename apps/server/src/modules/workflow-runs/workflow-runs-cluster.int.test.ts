import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { WorkflowRun } from '@gantry/contracts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { engines, type Caller } from '../../test/harness.js';
import type { TestDatabase } from '../../test/engines.js';
import { assertServerBuilt, signInNode, startNode, stopNode, type ServerNode } from '../../test/server-process.js';
import { setupTemplate } from '../../test/tasks.js';
import { waitFor } from '../../test/wait.js';

// Two real server processes on one PostgreSQL database (the built server: `npm run build` first).
// The node that drove a run last is killed with SIGKILL while the run's first step runs: the
// other node takes the run over once the lease has lapsed, and no try of any node has two tasks.
const postgres = engines.find((e) => e.name === 'postgres');
const TIMEOUT_S = 3;

describe.skipIf(!postgres)('workflow runs across two server nodes on PostgreSQL', () => {
  let db: TestDatabase;
  let sql: pg.Client;
  const secret = randomBytes(32).toString('base64');
  const nodes: ServerNode[] = [];

  beforeAll(async () => {
    assertServerBuilt();
    db = await postgres!.create();
    // One node first: it migrates the fresh database and creates the admin.
    for (const name of ['a', 'b'])
      nodes.push(await startNode(name, db, secret, { GANTRY_NODE_TIMEOUT_SECONDS: String(TIMEOUT_S) }));
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 90_000);

  afterAll(async () => {
    await sql?.end();
    for (const n of nodes) await stopNode(n, 'SIGKILL');
    for (const n of nodes) fs.rmSync(n.dataDir, { recursive: true, force: true });
    await db?.drop();
  });

  const nodeIdOf = async (n: ServerNode) =>
    (await sql.query<{ id: string }>('SELECT id FROM node WHERE address = $1', [`127.0.0.1:${n.port}`])).rows[0]!.id;

  it('finishes a run on the other node after the node driving it is killed, with one task per try', async () => {
    const [a, b] = nodes as [ServerNode, ServerNode];
    const ca: Caller = await signInNode(a.base);
    const p = (await ca.post('/api/projects', { name: `wf cluster ${randomBytes(3).toString('hex')}` })).json() as {
      id: number;
    };
    const repo = gitRepo({ 'slow.sh': 'echo start; sleep 4; echo done\n', 'ok.sh': 'echo ok\n' });
    const s = await setupTemplate(ca, p.id, repo, { name: 'slow', app: 'bash', playbook: 'slow.sh' });
    const ok = (
      await ca.post(`/api/project/${p.id}/templates`, {
        name: 'ok',
        app: 'bash',
        playbook: 'ok.sh',
        repository_id: s.repositoryId,
        environment_id: s.environmentId,
      })
    ).json() as { id: number };
    const w = await ca.post(`/api/project/${p.id}/workflows`, {
      name: 'cluster',
      nodes: [
        // A slow step whose task may run on the killed node: it is failed there, and its retry runs on the other one.
        { id: 'slow', type: 'template', template_id: s.templateId, retries: 2 },
        { id: 'fanout1', type: 'template', template_id: ok.id },
        { id: 'fanout2', type: 'template', template_id: ok.id },
        { id: 'end', type: 'template', template_id: ok.id },
      ],
      edges: [
        { from: 'slow', to: 'fanout1', on: 'success' },
        { from: 'slow', to: 'fanout2', on: 'success' },
        { from: 'fanout1', to: 'end', on: 'success' },
        { from: 'fanout2', to: 'end', on: 'success' },
      ],
    });
    expect(w.statusCode, w.body).toBe(201);
    const wid = (w.json() as { id: number }).id;
    const started = await ca.post(`/api/project/${p.id}/workflows/${wid}/runs`);
    expect(started.statusCode, started.body).toBe(201);
    const runId = (started.json() as WorkflowRun).id;

    // The slow step runs; whichever node drove the run last is the one to kill.
    await waitFor(
      'the slow step to run',
      async () =>
        (await sql.query("SELECT 1 FROM task WHERE workflow_run_id = $1 AND status = 'running'", [runId])).rowCount ===
        1,
    );
    const owner = (
      await sql.query<{ lease_owner: string | null }>('SELECT lease_owner FROM workflow_run WHERE id = $1', [runId])
    ).rows[0]!.lease_owner;
    const ids = new Map([
      [await nodeIdOf(a), a],
      [await nodeIdOf(b), b],
    ]);
    const victim = ids.get(owner!)!;
    expect(victim).toBeDefined();
    const survivor = victim === a ? b : a;
    await stopNode(victim, 'SIGKILL');

    const cs = await signInNode(survivor.base);
    const run = await waitFor(
      'the run to finish on the surviving node',
      async () => {
        const r = (await cs.get(`/api/project/${p.id}/workflows/${wid}/runs/${runId}`)).json() as WorkflowRun;
        return ['success', 'failed', 'stopped'].includes(r.status) ? r : null;
      },
      90_000,
    );
    expect(run.status).toBe('success');
    expect(run.nodes.map((n) => n.status)).toEqual(['success', 'success', 'success', 'success']);
    const lastDriver = (
      await sql.query<{ lease_owner: string }>('SELECT lease_owner FROM workflow_run WHERE id = $1', [runId])
    ).rows[0]!.lease_owner;
    expect(ids.get(lastDriver)).toBe(survivor);
    // Exactly one task per (node, try), and as many tries as the run says.
    const tasks = (
      await sql.query<{ workflow_node: string; workflow_attempt: number; n: number }>(
        'SELECT workflow_node, workflow_attempt, count(*)::int AS n FROM task WHERE workflow_run_id = $1 GROUP BY workflow_node, workflow_attempt',
        [runId],
      )
    ).rows;
    expect(tasks.every((t) => t.n === 1)).toBe(true);
    for (const n of run.nodes) {
      expect(n.task_ids).toHaveLength(n.attempts);
      expect(
        tasks
          .filter((t) => t.workflow_node === n.id)
          .map((t) => t.workflow_attempt)
          .sort(),
      ).toEqual(Array.from({ length: n.attempts }, (_, i) => i + 1));
    }
    // The steps after the slow one ran once each.
    for (const id of ['fanout1', 'fanout2', 'end']) expect(run.nodes.find((n) => n.id === id)!.attempts).toBe(1);
  }, 180_000);
});
