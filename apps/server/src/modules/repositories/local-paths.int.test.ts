import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  LOCAL_INVENTORY_REFUSED,
  LOCAL_PATH_NOT_ALLOWED,
  LOCAL_REPOSITORY_REFUSED,
} from '../../platform/local-paths.js';
import { httpRunnerServer } from '../../remote-runner/server-client.js';
import { FIXTURE_ROOT, gitRepo } from '../../test/git-fixture.js';
import {
  addMember,
  createProject,
  engines,
  signedInUser,
  useTestApp,
  type Caller,
  type TestContext,
} from '../../test/harness.js';
import { createKey } from '../../test/resources.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../../test/tasks.js';

const repositoryRefused = { error: LOCAL_REPOSITORY_REFUSED, code: LOCAL_PATH_NOT_ALLOWED, field: 'git_url' };
const inventoryRefused = { error: LOCAL_INVENTORY_REFUSED, code: LOCAL_PATH_NOT_ALLOWED, field: 'inventory' };

/** A project with a manager who is not an administrator, and a key of theirs. */
async function managedProject(ctx: TestContext): Promise<{ admin: Caller; manager: Caller; p: number; key: number }> {
  const admin = await signedInUser(ctx, { admin: true });
  const manager = await signedInUser(ctx);
  const p = await createProject(admin);
  await addMember(ctx, p, manager.id, 'manager');
  return { admin, manager, p, key: await createKey(manager, p) };
}

/**
 * A template on a remote repository (so it saves with nothing allowed); the test then changes
 * the stored row as an older server, or a wider GANTRY_ALLOWED_LOCAL_PATHS, would have left it.
 */
async function remoteTemplate(c: Caller, p: number, key: number) {
  const repo = (
    await c.post(`/api/project/${p}/repositories`, {
      name: 'r',
      git_url: 'https://example.invalid/r.git',
      git_branch: 'main',
      ssh_key_id: key,
    })
  ).json().id;
  const env = (await c.post(`/api/project/${p}/environment`, { name: 'e', json: '{}', env: '{}' })).json().id;
  const tpl = await c.post(`/api/project/${p}/templates`, {
    name: 'tpl',
    app: 'bash',
    playbook: 'run.sh',
    repository_id: repo,
    environment_id: env,
  });
  expect(tpl.statusCode, tpl.body).toBe(201);
  return { repo, env, template: tpl.json().id as number };
}

describe.each(engines)('local paths with GANTRY_ALLOWED_LOCAL_PATHS unset ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_ALLOWED_LOCAL_PATHS: '' });

  it("refuses a manager's repository on another project's workspace or local repository, naming the variable", async () => {
    const ctx = t();
    const { manager, p, key } = await managedProject(ctx);
    const other = gitRepo({ 'secret.txt': 'another project\n' });
    const urls = [
      path.join(ctx.config.taskDir, 'task_12', 'repository'),
      `file://${other}`,
      `file://localhost${other}`,
      `file://${other.replace('gantry', '%67antry')}`,
      other,
      path.join(ctx.config.dataDir, 'demo'),
    ];
    for (const git_url of urls) {
      // A file:// URL has a branch, as any URL; a path does not (the branch is dropped).
      const res = await manager.post(`/api/project/${p}/repositories`, {
        name: 'r',
        git_url,
        git_branch: 'main',
        ssh_key_id: key,
      });
      expect([git_url, res.statusCode, res.json()]).toEqual([git_url, 400, repositoryRefused]);
    }
    expect(LOCAL_REPOSITORY_REFUSED).toMatch(/GANTRY_ALLOWED_LOCAL_PATHS/);
    // Relative paths and remote helpers never got this far.
    for (const git_url of ['./repo', '../repo', 'repo', 'ext::sh -c id', 'fd::3']) {
      expect(
        (await manager.post(`/api/project/${p}/repositories`, { name: 'r', git_url, ssh_key_id: key })).json(),
        git_url,
      ).toEqual({ error: 'Incorrect URL', code: 'incorrect_url', field: 'git_url' });
    }
    const id = (
      await manager.post(`/api/project/${p}/repositories`, {
        name: 'r',
        git_url: 'git@example.com:o/r.git',
        git_branch: 'main',
        ssh_key_id: key,
      })
    ).json().id;
    const res = await manager.put(`/api/project/${p}/repositories/${id}`, {
      name: 'r',
      git_url: `file://${other}`,
      git_branch: 'main',
      ssh_key_id: key,
    });
    expect([res.statusCode, res.json()]).toEqual([400, repositoryRefused]);
    expect((await manager.get(`/api/project/${p}/repositories/${id}`)).json()).toMatchObject({
      git_url: 'git@example.com:o/r.git',
    });
  });

  it('refuses an absolute inventory file; a path inside the repository is fine', async () => {
    const { manager, p, key } = await managedProject(t());
    const res = await manager.post(`/api/project/${p}/inventory`, {
      name: 'abs',
      type: 'file',
      inventory: '/etc/ansible/hosts',
      ssh_key_id: key,
    });
    expect([res.statusCode, res.json()]).toEqual([400, inventoryRefused]);
    const ok = await manager.post(`/api/project/${p}/inventory`, {
      name: 'rel',
      type: 'file',
      inventory: 'inventories/prod.ini',
      ssh_key_id: key,
    });
    expect(ok.statusCode).toBe(201);
    const upd = await manager.put(`/api/project/${p}/inventory/${ok.json().id}`, {
      name: 'rel',
      type: 'file',
      inventory: '/etc/hosts',
      ssh_key_id: key,
    });
    expect([upd.statusCode, upd.json()]).toEqual([400, inventoryRefused]);
  });

  it('fails the task of a stored row that now breaks, with the message and before any checkout', async () => {
    const ctx = t();
    const { admin, p, key } = await managedProject(ctx);
    const { repo, template } = await remoteTemplate(admin, p, key);
    const other = gitRepo({ 'run.sh': 'echo read another project\n' });
    await ctx.db.db.updateTable('repository').set({ git_url: other, git_branch: '' }).where('id', '=', repo).execute();
    const id = await runTask(admin, p, { template_id: template });
    const task = await waitForTask(admin, p, id);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(task.status, log).toBe('error');
    expect(log).toContain(LOCAL_REPOSITORY_REFUSED);
    expect(log).not.toMatch(/Checked out|read another project/);
    expect(task.commit_hash).toBeNull();

    // An inventory file given as an absolute path (stored before the rule) fails the same way.
    await ctx.db.db
      .updateTable('repository')
      .set({ git_url: 'https://example.invalid/r.git', git_branch: 'main' })
      .where('id', '=', repo)
      .execute();
    const inv = (
      await admin.post(`/api/project/${p}/inventory`, {
        name: 'f',
        type: 'file',
        inventory: 'hosts.ini',
        ssh_key_id: key,
      })
    ).json().id;
    await ctx.db.db.updateTable('inventory').set({ inventory: '/etc/hosts' }).where('id', '=', inv).execute();
    await ctx.db.db.updateTable('template').set({ inventory_id: inv }).where('id', '=', template).execute();
    const id2 = await runTask(admin, p, { template_id: template });
    expect((await waitForTask(admin, p, id2)).status).toBe('error');
    expect((await taskLog(admin, p, id2)).join('\n')).toContain(LOCAL_INVENTORY_REFUSED);
  });

  it('the "run on new commit" check never reads a refused repository', async () => {
    const ctx = t();
    const { admin, p, key } = await managedProject(ctx);
    const { repo, template } = await remoteTemplate(admin, p, key);
    await ctx.db.db
      .updateTable('repository')
      .set({ git_url: gitRepo({ 'run.sh': 'echo x\n' }), git_branch: '' })
      .where('id', '=', repo)
      .execute();
    const s = await admin.post(`/api/project/${p}/schedules`, {
      name: 'on commit',
      template_id: template,
      cron_format: '* * * * *',
      repository_id: repo,
    });
    expect(s.statusCode, s.body).toBe(201);
    expect(await ctx.app.services.scheduler.tick(new Date(Date.now() + 61_000))).toBe(0);
    const events = (await admin.get(`/api/project/${p}/events/last`))
      .json()
      .map((e: { description: string }) => e.description);
    expect(events).toContain(`Schedule on commit could not run: ${LOCAL_REPOSITORY_REFUSED}`);
    const row = await ctx.db.db
      .selectFrom('schedule')
      .select('last_commit_hash')
      .where('id', '=', s.json().id)
      .executeTakeFirstOrThrow();
    expect(row.last_commit_hash).toBeNull();
  });

  it('refuses a restored backup whose repository is a local path', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const doc = {
      meta: { format: 'gantry-project-backup', version: 1, name: 'Restored' },
      keys: [{ id: 1, name: 'k', type: 'none' }],
      repositories: [
        { id: 1, name: 'r', git_url: path.join(t().config.taskDir, 'task_12', 'repository'), ssh_key_id: 1 },
      ],
    };
    // The rest of the backup is restored; the repository is left out and listed, nothing clones that path.
    const res = await admin.post('/api/projects/restore', doc);
    expect(res.statusCode).toBe(201);
    expect(res.json().unmapped).toEqual([`Repository "r": git_url: ${LOCAL_REPOSITORY_REFUSED}; not restored`]);
    expect((await admin.get(`/api/project/${res.json().id}/repositories`)).json()).toEqual([]);
  });

  it('the demo project still runs, its repository being in the data folder', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = (await admin.post('/api/projects', { name: 'Demo', demo: true })).json().id;
    const [repo] = (await admin.get(`/api/project/${p}/repositories`)).json();
    expect(repo.git_url).toBe(path.join(t().config.dataDir, 'demo', `project_${p}`));
    const bash = (await admin.get(`/api/project/${p}/templates`)).json().find((x: { app: string }) => x.app === 'bash');
    const id = await runTask(admin, p, { template_id: bash.id });
    const task = await waitForTask(admin, p, id);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(task.status, log).toBe('success');
    expect(log).toMatch(/greeting: from the demo/);
    // Exactly that folder: not the demo folder above it, nor what is inside.
    const key = await createKey(admin, p);
    for (const git_url of [path.dirname(repo.git_url), path.join(repo.git_url, '.git')]) {
      expect(
        (await admin.post(`/api/project/${p}/repositories`, { name: 'x', git_url, ssh_key_id: key })).json(),
      ).toEqual(repositoryRefused);
    }
  });
});

describe.each(engines)('local paths below GANTRY_ALLOWED_LOCAL_PATHS ($name)', (engine) => {
  // The temp folder holds the fixtures and also the test server's data and task folders.
  const t = useTestApp(engine, { GANTRY_ALLOWED_LOCAL_PATHS: os.tmpdir() });

  it('saves and runs a repository below it; the data and task folders stay refused, links included', async () => {
    const ctx = t();
    const { manager, p, key } = await managedProject(ctx);
    const fixture = gitRepo({ 'run.sh': 'echo allowed\n' });
    const s = await setupTemplate(manager, p, fixture, { app: 'bash', playbook: 'run.sh' });
    const id = await runTask(manager, p, { template_id: s.templateId });
    expect((await waitForTask(manager, p, id)).status).toBe('success');
    expect(await taskLog(manager, p, id)).toContain('allowed');
    const viaUrl = await manager.post(`/api/project/${p}/repositories`, {
      name: 'url',
      git_url: `file://${fixture}`,
      git_branch: 'main',
      ssh_key_id: key,
    });
    expect(viaUrl.statusCode, viaUrl.body).toBe(201);

    fs.mkdirSync(path.join(ctx.config.taskDir, 'task_12', 'repository'), { recursive: true });
    const link = path.join(fs.mkdtempSync(path.join(FIXTURE_ROOT, 'link-')), 'tasks');
    fs.symlinkSync(ctx.config.taskDir, link);
    const refused = [
      ctx.config.dataDir,
      path.join(ctx.config.dataDir, 'terraform'),
      `file://${ctx.config.dataDir}`,
      path.join(ctx.config.taskDir, 'task_12', 'repository'),
      path.join(link, 'task_12', 'repository'),
      path.join(FIXTURE_ROOT, '..', path.basename(path.dirname(ctx.config.dataDir)), 'data'),
    ];
    for (const git_url of refused) {
      const res = await manager.post(`/api/project/${p}/repositories`, {
        name: 'r',
        git_url,
        git_branch: 'main',
        ssh_key_id: key,
      });
      expect([git_url, res.statusCode, res.json()]).toEqual([git_url, 400, repositoryRefused]);
    }
  });

  it("a task cannot reach the local repository's files through its checkout (no shared inodes)", async () => {
    const ctx = t();
    const { manager, p } = await managedProject(ctx);
    // The task rewrites every object file of its own checkout, as hostile code would.
    const script =
      'find . -path "*/.git/objects/*" -type f | while read -r f; do chmod u+w "$f"; echo x >> "$f"; done; echo rewritten\n';
    const fixture = gitRepo({ 'run.sh': script });
    const objects = () =>
      fs
        .readdirSync(path.join(fixture, '.git', 'objects'), { recursive: true })
        .map((n) => path.join(fixture, '.git', 'objects', String(n)))
        .filter((f) => fs.statSync(f).isFile())
        .map((f) => {
          const s = fs.statSync(f);
          return { f, uid: s.uid, mode: s.mode, body: fs.readFileSync(f).toString('base64') };
        });
    const before = objects();
    const s = await setupTemplate(manager, p, fixture, { app: 'bash', playbook: 'run.sh' });
    const id = await runTask(manager, p, { template_id: s.templateId });
    expect((await waitForTask(manager, p, id)).status).toBe('success');
    expect(await taskLog(manager, p, id)).toContain('rewritten');
    // Owner, mode and content of the repository's own objects are as they were.
    expect(objects()).toEqual(before);
    for (const { f } of before) expect(fs.statSync(f).nlink).toBe(1);
  });

  it('saves an absolute inventory file below it, never one in the data or task folder', async () => {
    const ctx = t();
    const { manager, p, key } = await managedProject(ctx);
    const hosts = path.join(fs.mkdtempSync(path.join(FIXTURE_ROOT, 'inv-')), 'hosts.ini');
    fs.writeFileSync(hosts, 'localhost\n');
    const ok = await manager.post(`/api/project/${p}/inventory`, {
      name: 'abs',
      type: 'file',
      inventory: hosts,
      ssh_key_id: key,
    });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json()).toMatchObject({ inventory: hosts, repository_id: null });
    for (const inventory of [
      path.join(ctx.config.dataDir, 'gantry.sqlite'),
      path.join(ctx.config.taskDir, 'task_12', 'hosts.ini'),
    ]) {
      const res = await manager.post(`/api/project/${p}/inventory`, {
        name: 'bad',
        type: 'file',
        inventory,
        ssh_key_id: key,
      });
      expect([inventory, res.statusCode, res.json()]).toEqual([inventory, 400, inventoryRefused]);
    }
  });
});

describe.each(engines)('local paths on remote runners ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_USE_REMOTE_RUNNER: 'true', GANTRY_ALLOWED_LOCAL_PATHS: '' });
  let baseUrl = '';

  beforeAll(async () => {
    await t().app.listen({ port: 0, host: '127.0.0.1' });
    const address = t().app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    baseUrl = `http://127.0.0.1:${address.port}`;
  });

  it('never sends a runner a job whose repository is a refused local path: the task fails with the message', async () => {
    const ctx = t();
    const { admin, p, key } = await managedProject(ctx);
    const runner = (await admin.post('/api/runners', { name: 'lp', tag: 'lp' })).json();
    const { repo, template } = await remoteTemplate(admin, p, key);
    await ctx.db.db.updateTable('template').set({ runner_tag: 'lp' }).where('id', '=', template).execute();
    await ctx.db.db
      .updateTable('repository')
      .set({ git_url: `file://${gitRepo({ 'run.sh': 'echo x\n' })}`, git_branch: '' })
      .where('id', '=', repo)
      .execute();
    const id = await runTask(admin, p, { template_id: template });
    expect((await httpRunnerServer(baseUrl, runner.token).poll([])).jobs).toEqual([]);
    expect((await waitForTask(admin, p, id)).status).toBe('error');
    expect((await taskLog(admin, p, id)).join('\n')).toContain(LOCAL_REPOSITORY_REFUSED);
  });
});
