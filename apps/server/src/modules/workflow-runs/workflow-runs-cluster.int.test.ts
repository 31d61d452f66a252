import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowRun } from '@gantry/contracts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { engines, type Caller } from '../../test/harness.js';
import type { TestDatabase } from '../../test/engines.js';
import { assertServerBuilt, signInNode, startNode, stopNode, type ServerNode } from '../../test/server-process.js';
import { setupTemplate, taskLog } from '../../test/tasks.js';
import { waitFor } from '../../test/wait.js';

// Two real server processes on one PostgreSQL database (the built server: `npm run build` first).
// The test waits until one node both drives the run (holds its lease last) and runs its first
// step's task, then kills that node with SIGKILL: the other node reaps it (failing the task),
// takes the run over once the lease has lapsed, and retries that step. Every script writes a line
// to a journal outside the sandbox when it starts, so "no node ran twice" is checked on the
// processes themselves, not only on the task rows.
const postgres = engines.find((e) => e.name === 'postgres');
const TIMEOUT_S = 3;

describe.skipIf(!postgres)('workflow runs across two server nodes on PostgreSQL', () => {
  let db: TestDatabase;
  let sql: pg.Client;
  const secret = randomBytes(32).toString('base64');
  const nodes: ServerNode[] = [];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-wf-cluster-'));
  const journal = path.join(scratch, 'journal');

  beforeAll(async () => {
    assertServerBuilt();
    // Tasks run as another user (nobody, when the server is root): the journal is theirs to write.
    fs.chmodSync(scratch, 0o1777);
    db = await postgres!.create();
    // One node first: it migrates the fresh database and creates the admin.
    for (const name of ['a', 'b'])
      nodes.push(
        await startNode(name, db, secret, {
          GANTRY_NODE_TIMEOUT_SECONDS: String(TIMEOUT_S),
          // The journal lives outside the tasks; a sandboxed task would see a /tmp of its own.
          GANTRY_TASK_SANDBOX: 'off',
        }),
      );
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 90_000);

  afterAll(async () => {
    await sql?.end();
    for (const n of nodes) await stopNode(n, 'SIGKILL');
    for (const n of nodes) fs.rmSync(n.dataDir, { recursive: true, force: true });
    fs.rmSync(scratch, { recursive: true, force: true });
    await db?.drop();
  });

  const nodeIdOf = async (n: ServerNode) =>
    (await sql.query<{ id: string }>('SELECT id FROM node WHERE address = $1', [`127.0.0.1:${n.port}`])).rows[0]!.id;

  it('finishes a run on the other node after the node driving it is killed mid-step; no step runs twice', async () => {
    const [a, b] = nodes as [ServerNode, ServerNode];
    const ca: Caller = await signInNode(a.base);
    const p = (await ca.post('/api/projects', { name: `wf cluster ${randomBytes(3).toString('hex')}` })).json() as {
      id: number;
    };
    // The slow step's first try outlives the kill; its retry (the marker is there by then) ends at once.
    const marker = path.join(scratch, 'slow-tried');
    const repo = gitRepo({
      'slow.sh': `echo "slow $GANTRY_TASK_ID" >> ${journal}
if [ -e ${marker} ]; then echo retried; exit 0; fi
touch ${marker}; echo start; sleep 120; echo done
`,
      'ok.sh': `echo "ok $GANTRY_TASK_ID" >> ${journal}; echo ok\n`,
    });
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
        // The step in flight when its node dies: that try fails (the node death), the retry runs on the survivor.
        { id: 'slow', type: 'template', template_id: s.templateId, retries: 1 },
        // No retries after it: a second task of any of these would be a step run twice.
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

    const ids = new Map([
      [await nodeIdOf(a), a],
      [await nodeIdOf(b), b],
    ]);
    // The two nodes take turns at the run's lease (each look gives it back): once the slow step's
    // script runs, wait for a look by the node running it, and kill that node.
    const victimId = await waitFor(
      'one node to drive the run and run its slow step',
      async () => {
        if (!fs.existsSync(marker)) return null;
        const r = await sql.query<{ node_id: string }>(
          `SELECT t.node_id FROM task t JOIN workflow_run r ON r.id = t.workflow_run_id
            WHERE r.id = $1 AND t.status = 'running' AND t.node_id = r.lease_owner`,
          [runId],
        );
        return r.rows[0]?.node_id;
      },
      60_000,
    );
    const victim = ids.get(victimId)!;
    expect(victim).toBeDefined();
    const survivor = victim === a ? b : a;
    const survivorId = [...ids].find(([, n]) => n === survivor)![0];
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
    expect(run.nodes.map((n) => [n.id, n.status])).toEqual([
      ['slow', 'success'],
      ['fanout1', 'success'],
      ['fanout2', 'success'],
      ['end', 'success'],
    ]);
    const lastDriver = (
      await sql.query<{ lease_owner: string }>('SELECT lease_owner FROM workflow_run WHERE id = $1', [runId])
    ).rows[0]!.lease_owner;
    expect(lastDriver).toBe(survivorId);

    const tasks = (
      await sql.query<{ id: number; workflow_node: string; workflow_attempt: number; status: string; node_id: string }>(
        'SELECT id, workflow_node, workflow_attempt, status, node_id FROM task WHERE workflow_run_id = $1 ORDER BY id',
        [runId],
      )
    ).rows;
    const byStep = (id: string) => tasks.filter((t) => t.workflow_node === id);
    const step = (id: string) => run.nodes.find((n) => n.id === id)!;

    // The slow step: its first try ran on the killed node only and was failed by the reaper, its
    // second (and last) ran on the survivor only.
    const [first, retry, ...more] = byStep('slow');
    expect(more).toEqual([]);
    expect(first).toMatchObject({ workflow_attempt: 1, status: 'error', node_id: victimId });
    expect(retry).toMatchObject({ workflow_attempt: 2, status: 'success', node_id: survivorId });
    expect(step('slow')).toMatchObject({ attempts: 2, task_ids: [first!.id, retry!.id] });
    const firstLog = await taskLog(cs, p.id, first!.id);
    expect(firstLog).not.toContain('done');
    expect(firstLog.at(-1)).toBe(`Node ${victimId} stopped answering; the task was failed.`);
    expect(await taskLog(cs, p.id, retry!.id)).toContain('retried');

    // Every other step: one try, one task, on the survivor.
    for (const id of ['fanout1', 'fanout2', 'end']) {
      const [only, ...extra] = byStep(id);
      expect(extra, id).toEqual([]);
      expect(only, id).toMatchObject({ workflow_attempt: 1, status: 'success', node_id: survivorId });
      expect(step(id), id).toMatchObject({ attempts: 1, task_ids: [only!.id] });
    }
    expect(tasks).toHaveLength(5);

    // And on the processes: each task's script started exactly once.
    const scriptStarts = fs.readFileSync(journal, 'utf8').trim().split('\n').sort();
    expect(scriptStarts).toEqual(tasks.map((t) => `${t.workflow_node === 'slow' ? 'slow' : 'ok'} ${t.id}`).sort());
  }, 180_000);
});
