import { describe, expect, it } from 'vitest';
import { DEBUG_REFUSED, emptyKeyNotice } from '../engine/run-context.js';
import { gitRepo } from '../test/git-fixture.js';
import { addMember, createProject, engines, signedInUser, useTestApp, type Caller, type TestContext } from '../test/harness.js';
import { setupTemplate, taskLog, waitForTask } from '../test/tasks.js';
import { semaphoreRequest } from './tasks-client.js';

// Debug is never a silent no-op (issue 20 item 5). Semaphore's console cannot set a template's
// allow_debug, so whoever may edit the template may always ask for debug output; a task runner
// only where the template allows it, and when it does not, the task runs and its log says why.

const PLAYBOOK = `
- hosts: all
  gather_facts: false
  tasks:
    - ansible.builtin.debug:
        msg: "hello"
`;

async function ansibleTemplate(admin: Caller, p: number, taskParams: Record<string, unknown>): Promise<number> {
  const key = (await admin.post(`/api/project/${p}/keys`, { name: 'none', type: 'none' })).json().id;
  const inventory = (
    await admin.post(`/api/project/${p}/inventory`, {
      name: 'local',
      type: 'static',
      inventory: 'localhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3',
      ssh_key_id: key,
    })
  ).json().id;
  const s = await setupTemplate(admin, p, gitRepo({ 'site.yml': PLAYBOOK }), { app: 'ansible', playbook: 'site.yml', inventory_id: inventory, task_params: taskParams });
  return s.templateId;
}

async function member(ctx: TestContext, p: number, role: 'manager' | 'task_runner'): Promise<Caller> {
  const u = await signedInUser(ctx);
  await addMember(ctx, p, u.id, role);
  return u;
}

/** Runs the template with debug asked as Semaphore's console asks it; answers the task's log lines. */
async function debugRun(ctx: TestContext, who: Caller, p: number, templateId: number, level: number): Promise<{ id: number; lines: string[]; log: string }> {
  const res = await semaphoreRequest(ctx, { caller: who }, 'POST', `/api/project/${p}/tasks`, {
    template_id: templateId,
    project_id: p,
    debug: true,
    dry_run: false,
    diff: false,
    playbook: '',
    environment: '{}',
    message: '',
    params: { debug: true, debug_level: level },
  });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json<{ id: number }>().id;
  const task = await waitForTask(who, p, id, undefined, 90_000);
  const lines = await taskLog(who, p, id);
  const log = lines.join('\n');
  expect(task.status, log).toBe('success');
  return { id, lines, log };
}

/** The line right after Gantry's own start line (a sandbox warning, when there is one, comes before it). */
const firstRunLine = (r: { id: number; lines: string[] }) => r.lines[r.lines.indexOf(`Task #${r.id} started`) + 1];

// ansible-playbook -v names its configuration file; at -vvvv it also prints the options it runs with.
const VERBOSE = /config file =/;
const RAN_WITH_VVVV = /^verbosity: 4$/m;

describe.each(engines)('debug requests ($name)', (engine) => {
  const t = useTestApp(engine);

  it("applies a manager's debug on a template without allow_debug: ansible-playbook really runs -vvvv", async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const manager = await member(ctx, p, 'manager');
    const tpl = await ansibleTemplate(admin, p, {});
    const r = await debugRun(ctx, manager, p, tpl, 4);
    expect(r.log).toMatch(VERBOSE);
    expect(r.log).toMatch(RAN_WITH_VVVV);
    expect(r.log).not.toContain(DEBUG_REFUSED);
    // The level is honoured: -vv shows the configuration, not the options.
    const low = await debugRun(ctx, manager, p, tpl, 2);
    expect(low.log).toMatch(VERBOSE);
    expect(low.log).not.toMatch(RAN_WITH_VVVV);
  }, 120_000);

  it("runs a task runner's task without debug where the template does not allow it, and its log says so first", async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const runner = await member(ctx, p, 'task_runner');
    const tpl = await ansibleTemplate(admin, p, {});
    const r = await debugRun(ctx, runner, p, tpl, 4);
    expect(DEBUG_REFUSED).toBe('Debug was not enabled: the template does not allow it for your role');
    expect(firstRunLine(r)).toBe(DEBUG_REFUSED);
    expect(r.log).toContain('"msg": "hello"');
    expect(r.log).not.toMatch(VERBOSE);

    // Still first when the run has other notices to give (a key a restore left empty).
    const inventory = (await admin.get(`/api/project/${p}/templates/${tpl}`)).json().inventory_id as number;
    const become = (await admin.post(`/api/project/${p}/keys`, { name: 'restored become', type: 'login_password', login_password: { login: 'u', password: 'p' } })).json().id as number;
    await ctx.db.db.updateTable('access_key').set({ secret: null }).where('id', '=', become).execute();
    const inv = (await admin.get(`/api/project/${p}/inventory/${inventory}`)).json();
    expect((await admin.put(`/api/project/${p}/inventory/${inventory}`, { ...inv, become_key_id: become })).statusCode).toBe(204);
    const again = await debugRun(ctx, runner, p, tpl, 4);
    expect(firstRunLine(again)).toBe(DEBUG_REFUSED);
    expect(again.lines).toContain(emptyKeyNotice('restored become'));
  }, 120_000);

  it("applies a task runner's debug where the template allows it", async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const runner = await member(ctx, p, 'task_runner');
    const tpl = await ansibleTemplate(admin, p, { allow_debug: true });
    const r = await debugRun(ctx, runner, p, tpl, 4);
    expect(r.log).toMatch(RAN_WITH_VVVV);
    expect(r.log).not.toContain(DEBUG_REFUSED);
  }, 90_000);
});
