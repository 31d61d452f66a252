import fs from 'node:fs';
import path from 'node:path';
import type { WorkflowRun } from '@gantry/contracts';
import { gitRepo } from './git-fixture.js';
import { expect } from 'vitest';
import { createProject, type Caller } from './harness.js';
import { setupTemplate } from './tasks.js';

/**
 * Tasks see a read-only /var/tmp (and a private /tmp): a flag the test creates there is what a
 * script waits for or checks, so the test decides when a try may succeed.
 */
export function flagFile(): string {
  const dir = fs.mkdtempSync(path.join('/var/tmp', 'gantry-wf-flag-'));
  fs.chmodSync(dir, 0o755);
  return path.join(dir, 'go');
}

export const SCRIPTS = {
  'ok.sh': 'echo "ok from $(basename $PWD)"\n',
  'fail.sh': 'echo failing; exit 3\n',
  'sleep.sh': 'echo sleeping; sleep 60\n',
  // Fails until the flag exists: the flaky step and the step fixed before a resume.
  'flag.sh': 'if [ -f "$FLAG" ]; then echo "flag found"; else echo "no flag yet"; exit 1; fi\n',
  // Leaves an output object for the nodes after it, and prints what it was given.
  'out.sh': 'echo "inputs=$GANTRY_OUTPUTS"\nprintf \'{"version": "1.2.%s"}\' 3 > "$GANTRY_OUTPUT"\n',
  'in.sh': 'echo "inputs=$GANTRY_OUTPUTS"\n',
  // Says which variable group it runs with (each group sets WHO differently).
  'who.sh': 'echo "who=${WHO:-nobody}"\n',
  // An Ansible node: reads an earlier node's output from gantry_outputs, leaves its own module-free.
  'deploy.yml': `- hosts: all
  gather_facts: false
  tasks:
    - name: show what the build left
      ansible.builtin.debug:
        msg: "deploying {{ gantry_outputs.build.version }}"
    - name: leave this node's output
      ansible.builtin.copy:
        content: "{{ {'deployed': gantry_outputs.build.version} | to_json }}"
        dest: "{{ lookup('ansible.builtin.env', 'GANTRY_OUTPUT') }}"
        mode: "0600"
      delegate_to: localhost
      run_once: true
`,
};
export type Script = keyof typeof SCRIPTS;

export interface WfProject {
  p: number;
  flag: string;
  tpl: Record<Script, number>;
}

/** A project with one bash template per script, on one repository and one variable group (which names the flag). */
export async function wfProject(admin: Caller): Promise<WfProject> {
  const p = await createProject(admin);
  const flag = flagFile();
  const repo = gitRepo(SCRIPTS);
  const first = await setupTemplate(
    admin,
    p,
    repo,
    { name: 'ok.sh', app: 'bash', playbook: 'ok.sh' },
    { env: JSON.stringify({ FLAG: flag }) },
  );
  const tpl = { 'ok.sh': first.templateId } as Record<Script, number>;
  const key = (await admin.post(`/api/project/${p}/keys`, { name: 'none', type: 'none' })).json<{ id: number }>().id;
  const inventory = (
    await admin.post(`/api/project/${p}/inventory`, {
      name: 'local',
      type: 'static',
      inventory: 'web ansible_connection=local ansible_python_interpreter=/usr/bin/python3',
      ssh_key_id: key,
    })
  ).json<{ id: number }>().id;
  for (const script of Object.keys(SCRIPTS) as Script[]) {
    if (script === 'ok.sh') continue;
    const app = script.endsWith('.yml') ? { app: 'ansible', inventory_id: inventory } : { app: 'bash' };
    const r = await admin.post(`/api/project/${p}/templates`, {
      name: script,
      playbook: script,
      repository_id: first.repositoryId,
      environment_id: first.environmentId,
      ...app,
    });
    if (r.statusCode !== 201) throw new Error(`template: ${r.body}`);
    tpl[script] = r.json<{ id: number }>().id;
  }
  return { p, flag, tpl };
}

export const tnode = (id: string, template_id: number, extra: object = {}) => ({
  id,
  type: 'template',
  template_id,
  ...extra,
});

export async function createWorkflow(
  admin: Caller,
  p: number,
  body: { nodes: object[]; edges?: object[]; joins?: object },
): Promise<number> {
  const r = await admin.post(`/api/project/${p}/workflows`, {
    name: `wf-${Math.random().toString(36).slice(2, 8)}`,
    ...body,
  });
  if (r.statusCode !== 201) throw new Error(`workflow: ${r.statusCode} ${r.body}`);
  return r.json<{ id: number }>().id;
}

export async function startRun(c: Caller, p: number, w: number): Promise<WorkflowRun> {
  const r = await c.post(`/api/project/${p}/workflows/${w}/runs`);
  if (r.statusCode !== 201) throw new Error(`run: ${r.statusCode} ${r.body}`);
  return r.json<WorkflowRun>();
}

/** Polls the run until `done` holds (default: the run finished). */
export async function waitRun(
  c: Caller,
  p: number,
  w: number,
  id: number,
  done: (r: WorkflowRun) => boolean = (r) => ['success', 'failed', 'stopped'].includes(r.status),
  timeoutMs = 60_000,
): Promise<WorkflowRun> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = (await c.get(`/api/project/${p}/workflows/${w}/runs/${id}`)).json<WorkflowRun>();
    if (done(r)) return r;
    if (Date.now() > until) throw new Error(`run ${id} still ${JSON.stringify(r)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

export const nodeOf = (r: WorkflowRun, id: string) => r.nodes.find((n) => n.id === id)!;
/** Each node's status, by id. */
export const statuses = (r: WorkflowRun) => Object.fromEntries(r.nodes.map((n) => [n.id, n.status]));

/** Gives a template an approval policy: its tasks wait until `approverId` approves. */
export async function requireApproval(admin: Caller, p: number, templateId: number, approverId: number): Promise<void> {
  const row = (await admin.get(`/api/project/${p}/templates/${templateId}`)).json();
  const put = await admin.put(`/api/project/${p}/templates/${templateId}`, {
    ...row,
    approval_policy: { approvers: { users: [approverId] }, required_approvals: 1 },
  });
  expect(put.statusCode, put.body).toBe(204);
}
