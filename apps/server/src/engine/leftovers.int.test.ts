import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../db/db.js';
import { gitRepo } from '../test/git-fixture.js';
import { engines, type Caller } from '../test/harness.js';
import { opensshPrivateKey } from '../test/keys.js';
import { assertServerBuilt, signInNode, sleep, startNode, stopNode, type ServerNode } from '../test/server-process.js';
import { waitFor } from '../test/wait.js';

// kill -9 of a real server (the built server: `npm run build` first) in the middle of tasks that
// hold SSH keys: one loaded into an ssh-agent (a key with a passphrase), one as a key file.

const secret = randomBytes(32).toString('base64');
const cleanup: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

/** Processes whose command line mentions `text`: [pid, argv]. */
function processesMentioning(text: string): Array<[number, string[]]> {
  const found: Array<[number, string[]]> = [];
  for (const n of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${n}/cmdline`, 'utf8').split('\0');
      if (argv.some((a) => a.includes(text))) found.push([Number(n), argv]);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}
/** ssh-agent processes themselves (not the sandbox around one) serving a socket under `dir`. */
const agentsIn = (dir: string) => processesMentioning(dir).filter(([, argv]) => path.basename(argv[0]!) === 'ssh-agent');

/** A bash template whose repository is reached with an SSH key (so the run materialises it). */
async function templateWithKey(c: Caller, projectId: number, name: string, passphrase: string): Promise<number> {
  const key = await c.post(`/api/project/${projectId}/keys`, { name, type: 'ssh', ssh: { login: 'git', passphrase, private_key: opensshPrivateKey(passphrase).privateKey } });
  expect(key.statusCode, key.body).toBe(201);
  const repo = await c.post(`/api/project/${projectId}/repositories`, { name, git_url: gitRepo({ 'run.sh': 'echo holding-key\nsleep 20\n' }), ssh_key_id: key.json<{ id: number }>().id });
  expect(repo.statusCode, repo.body).toBe(201);
  const env = await c.post(`/api/project/${projectId}/environment`, { name, json: '{}', env: '{}' });
  const tpl = await c.post(`/api/project/${projectId}/templates`, { name, app: 'bash', playbook: 'run.sh', repository_id: repo.json<{ id: number }>().id, environment_id: env.json<{ id: number }>().id });
  expect(tpl.statusCode, tpl.body).toBe(201);
  return tpl.json<{ id: number }>().id;
}

// Sandboxed (bwrap's --die-with-parent) and not (the agent's own parent-death signal).
describe.each([['sandboxed', 'auto'], ['not sandboxed', 'off']] as const)('kill -9 of the server while tasks hold SSH keys (%s)', (_mode, sandbox) => {
  it('leaves no ssh-agent running, and the next start removes every key file and task folder, and checkouts kept for deleted projects', async () => {
    assertServerBuilt();
    const tdb = await engines[0]!.create();
    cleanup.push(() => tdb.drop());
    const env = { GANTRY_TASK_SANDBOX: sandbox };
    let node: ServerNode = await startNode('keys', tdb, secret, env, tdb.dataDir);
    cleanup.push(() => stopNode(node, 'SIGKILL'));
    const c = await signInNode(node.base);
    const p = await c.post('/api/projects', { name: `keys ${sandbox}` });
    const projectId = p.json<{ id: number }>().id;
    const ids: number[] = [];
    for (const [name, passphrase] of [['agent', 'pass-phrase-1'], ['file', '']] as const) {
      const r = await c.post(`/api/project/${projectId}/tasks`, { template_id: await templateWithKey(c, projectId, name, passphrase) });
      expect(r.statusCode, r.body).toBe(201);
      ids.push(r.json<{ id: number }>().id);
    }
    const taskDir = `${tdb.dataDir}-tasks`;
    const folder = (id: number) => path.join(taskDir, `task_${id}`);
    // An unsandboxed task outlives a kill -9 of its server (its own process group): not this test's subject.
    cleanup.push(() => {
      for (const id of ids) for (const [pid] of processesMentioning(folder(id))) process.kill(pid, 'SIGKILL');
    });
    const db = createDb(tdb.url);
    cleanup.push(() => db.close());
    const running = async () => (await db.db.selectFrom('task_output').select('output').where('task_id', 'in', ids).execute()).filter((l) => l.output === 'holding-key').length === 2;
    const deadline = Date.now() + 30_000;
    while (!(await running())) {
      if (Date.now() > deadline) throw new Error('the tasks did not start');
      await sleep(100);
    }
    const [agentTask, fileTask] = ids as [number, number];
    // While they run: the agent holds the first key (its file is gone already), the second is a file.
    expect(agentsIn(folder(agentTask))).toHaveLength(1);
    expect(fs.readdirSync(path.join(folder(agentTask), 'secrets')).filter((f) => f.endsWith('.key'))).toEqual([]);
    expect(fs.readdirSync(path.join(folder(fileTask), 'secrets')).filter((f) => f.endsWith('.key'))).toHaveLength(1);

    // A checkout kept for a project another node deleted meanwhile (a copy of this project's).
    const checkouts = path.join(tdb.dataDir, 'checkouts');
    const kept = (project: number) => fs.readdirSync(checkouts).filter((n) => n.startsWith(`project_${project}-`));
    const deleted = 2_000_000_000;
    fs.cpSync(path.join(checkouts, kept(projectId)[0]!), path.join(checkouts, `project_${deleted}-${'0'.repeat(16)}-${'1'.repeat(16)}`), { recursive: true, verbatimSymlinks: true });

    await stopNode(node, 'SIGKILL');
    // The agent dies with the server, before any restart.
    await waitFor('the agent to die with the server', () => agentsIn(folder(agentTask)).length === 0, 5_000);

    node = await startNode('keys', tdb, secret, env, tdb.dataDir, node.port);
    // Removed right after the server started listening.
    await waitFor('the leftover folders to go', () => ids.every((id) => !fs.existsSync(folder(id))), 10_000);
    expect(agentsIn(taskDir)).toEqual([]);
    await waitFor('the deleted project’s checkout to go', () => kept(deleted).length === 0, 10_000);
    expect(kept(projectId)).toHaveLength(2);
    const statuses = await db.db.selectFrom('task').select('status').where('id', 'in', ids).execute();
    expect(statuses.map((s) => s.status)).toEqual(['error', 'error']);
    await stopNode(node);
  }, 60_000);
});
