import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { engines } from '../../test/harness.js';
import type { TestDatabase } from '../../test/engines.js';
import { startHttpReceiver, type HttpReceiver } from '../../test/http-receiver.js';
import {
  assertServerBuilt,
  signInNode,
  sleep,
  startNode,
  stopNode,
  type ServerNode,
} from '../../test/server-process.js';
import { runTask, setupTemplate, waitForTask } from '../../test/tasks.js';
import { waitFor } from '../../test/wait.js';

// Two real server processes on one PostgreSQL database (the built server: `npm run build` first):
// both hear of the task and both sweep for started tasks; the receiver still gets each event once.
const postgres = engines.find((e) => e.name === 'postgres');
/** The sweep's default interval: waiting a few of them lets both nodes look again. */
const SWEEP_MS = 5000;

describe.skipIf(!postgres)('notification routing across two server nodes on PostgreSQL', () => {
  let db: TestDatabase;
  let sql: pg.Client;
  let receiver: HttpReceiver;
  const secret = randomBytes(32).toString('base64');
  const nodes: ServerNode[] = [];

  beforeAll(async () => {
    assertServerBuilt();
    receiver = await startHttpReceiver();
    db = await postgres!.create();
    // One node first: it migrates the fresh database and creates the admin.
    for (const name of ['a', 'b'])
      nodes.push(await startNode(name, db, secret, { GANTRY_FETCH_ALLOWED_HOSTS: '127.0.0.1' }));
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 90_000);

  afterAll(async () => {
    await sql?.end();
    for (const n of nodes) await stopNode(n);
    for (const n of nodes) fs.rmSync(n.dataDir, { recursive: true, force: true });
    await db?.drop();
    await receiver?.close();
  });

  it('delivers one failing task’s started and failed events exactly once', async () => {
    const [a, b] = nodes as [ServerNode, ServerNode];
    const ca = await signInNode(a.base);
    const cb = await signInNode(b.base);
    const p = (await ca.post('/api/projects', { name: `route ${randomBytes(3).toString('hex')}` })).json() as {
      id: number;
    };
    const s = await setupTemplate(ca, p.id, gitRepo({ 'fail.sh': 'echo broken\nexit 3\n' }), { playbook: 'fail.sh' });
    const dest = await ca.post(`/api/project/${p.id}/notification-destinations`, {
      name: 'Receiver',
      kind: 'webhook',
      config: { url: `${receiver.url}/cluster`, secret: 'cluster-signing-secret' },
    });
    expect(dest.statusCode, dest.body).toBe(201);
    // Made through the other node: both read rules from the database.
    const rule = await cb.post(`/api/project/${p.id}/notification-rules`, {
      destination_id: dest.json().id,
      events: ['task_started', 'task_failed'],
    });
    expect(rule.statusCode, rule.body).toBe(201);

    const id = await runTask(ca, p.id, { template_id: s.templateId });
    expect((await waitForTask(ca, p.id, id)).status).toBe('error');
    const events = () =>
      receiver.requests.filter((r) => r.path === '/cluster').map((r) => (r.json as { event: string }).event);
    await waitFor('both events', () => events().includes('task_failed') && events().includes('task_started'), 30_000);
    // Both nodes sweep again, and any late enqueue of either would have been sent by now.
    await sleep(2 * SWEEP_MS);
    expect(events().sort()).toEqual(['task_failed', 'task_started']);
    const rows = await sql.query(
      'SELECT event, status, attempts FROM notification_delivery WHERE task_id = $1 ORDER BY event',
      [id],
    );
    expect(rows.rows).toEqual([
      { event: 'task_failed', status: 'sent', attempts: 1 },
      { event: 'task_started', status: 'sent', attempts: 1 },
    ]);
  }, 90_000);
});
