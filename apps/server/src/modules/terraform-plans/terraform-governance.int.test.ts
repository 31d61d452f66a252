import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { commitFiles, gitRepo } from '../../test/git-fixture.js';
import { addMember, createProject, engines, signedInUser, type Caller, useTestApp } from '../../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask, type TemplateSetup } from '../../test/tasks.js';

const TERRAFORM = '/usr/local/bin/terraform';

/** `count` terraform_data resources named r0.., each with its input. */
function config(count: number, input = 'v1'): string {
  let out = '';
  for (let i = 0; i < count; i++) out += `resource "terraform_data" "r${i}" {\n  input = "${input}"\n}\n`;
  return out;
}

// A PATH where `tofu` is terraform, as OpenTofu is driven the same way.
const binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-tofu-'));
fs.symlinkSync(TERRAFORM, path.join(binDir, 'tofu'));
const env = { PATH: `${binDir}:${process.env.PATH}` };

/** Saves the template's task_params (the policy among them) as the template's form does. */
async function saveTemplate(c: Caller, s: TemplateSetup, app: string, taskParams: Record<string, unknown>) {
  const res = await c.put(`/api/project/${s.projectId}/templates/${s.templateId}`, {
    name: 'tpl',
    app,
    playbook: '',
    repository_id: s.repositoryId,
    environment_id: s.environmentId,
    task_params: taskParams,
  });
  expect(res.statusCode, res.body).toBe(204);
}

async function task(c: Caller, p: number, id: number) {
  return (await c.get(`/api/project/${p}/tasks/${id}`)).json();
}

/** Applies the template's configuration at once (auto-approve). */
async function apply(c: Caller, p: number, templateId: number, params: Record<string, unknown> = {}) {
  const id = await runTask(c, p, { template_id: templateId, params: { auto_approve: true, ...params } });
  const done = await waitForTask(c, p, id, undefined, 120_000);
  expect(done.status, (await taskLog(c, p, id)).join('\n')).toBe('success');
  return id;
}

describe.each(engines)('terraform governance ($name)', (engine) => {
  const t = useTestApp(engine, env);

  for (const app of ['terraform', 'tofu'] as const) {
    it(`${app}: a plan's task carries its summary; the confirm is recorded; the policy is saved`, async () => {
      const admin = await signedInUser(t(), { admin: true });
      const p = await createProject(admin);
      const s = await setupTemplate(admin, p, gitRepo({ 'main.tf': config(2) }), {
        app,
        playbook: '',
        task_params: { policy: { max_destroys: 3, deny_destroy_types: ['aws_*'] } },
      });
      const tpl = (await admin.get(`/api/project/${p}/templates/${s.templateId}`)).json();
      expect(tpl.task_params.policy).toMatchObject({
        max_destroys: 3,
        deny_destroy_types: ['aws_*'],
        deny_create_types: [],
      });
      // Never checked: a Terraform template answers null.
      expect(tpl.drift).toBeNull();

      const id = await runTask(admin, p, { template_id: s.templateId });
      await waitForTask(admin, p, id, ['waiting_confirmation'], 120_000);
      const waiting = await task(admin, p, id);
      expect(waiting.plan_summary).toMatchObject({ create: 2, update: 0, replace: 0, destroy: 0 });
      expect(
        waiting.plan_summary.resources.map((r: { address: string; action: string }) => [r.address, r.action]),
      ).toEqual([
        ['terraform_data.r0', 'create'],
        ['terraform_data.r1', 'create'],
      ]);
      expect(waiting.plan_summary.policy).toMatchObject({ passed: true, reasons: [], confirm_role: null });
      expect(waiting.plan_confirmation).toBeNull();

      expect((await admin.post(`/api/project/${p}/tasks/${id}/confirm`)).statusCode).toBe(204);
      expect((await waitForTask(admin, p, id, undefined, 120_000)).status).toBe('success');
      const done = await task(admin, p, id);
      expect(done.plan_confirmation).toMatchObject({ user_id: admin.id, user_name: `Name ${admin.username}` });
      expect(Date.parse(done.plan_confirmation.at)).not.toBeNaN();
      // The lists stay as they were.
      const listed = (await admin.get(`/api/project/${p}/tasks`)).json();
      expect(listed.find((x: { id: number }) => x.id === id).plan_summary).toBeUndefined();
    });
  }

  it('max_destroys and deny_destroy_types block a plan (rejected, with the reasons) and pass within the rules', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'main.tf': config(2) });
    const s = await setupTemplate(admin, p, repo, {
      app: 'terraform',
      playbook: '',
      task_params: { allow_auto_approve: true },
    });
    await apply(admin, p, s.templateId);
    commitFiles(repo, { 'main.tf': '' }, [], 'remove everything');

    await saveTemplate(admin, s, 'terraform', { allow_auto_approve: true, policy: { max_destroys: 1 } });
    const blocked = await runTask(admin, p, { template_id: s.templateId, params: { auto_approve: true } });
    expect((await waitForTask(admin, p, blocked, undefined, 120_000)).status).toBe('rejected');
    const b = await task(admin, p, blocked);
    expect(b.plan_summary).toMatchObject({ destroy: 2, policy: { passed: false } });
    expect(b.plan_summary.policy.reasons).toEqual([
      expect.objectContaining({ code: 'policy_max_destroys', params: { count: 2, max: 1 } }),
    ]);
    expect((await taskLog(admin, p, blocked)).join('\n')).toMatch(/the policy allows at most 1/);

    await saveTemplate(admin, s, 'terraform', {
      allow_auto_approve: true,
      policy: { deny_destroy_types: ['terraform_*'] },
    });
    const denied = await runTask(admin, p, { template_id: s.templateId, params: { auto_approve: true } });
    expect((await waitForTask(admin, p, denied, undefined, 120_000)).status).toBe('rejected');
    expect((await task(admin, p, denied)).plan_summary.policy.reasons).toEqual([
      expect.objectContaining({
        code: 'policy_deny_destroy',
        params: { type: 'terraform_*', addresses: 'terraform_data.r0, terraform_data.r1' },
      }),
    ]);

    // Within the limit: the plan waits for confirmation as usual, and nothing was destroyed before.
    await saveTemplate(admin, s, 'terraform', { policy: { max_destroys: 2, deny_destroy_types: ['aws_instance'] } });
    const within = await runTask(admin, p, { template_id: s.templateId });
    await waitForTask(admin, p, within, ['waiting_confirmation'], 120_000);
    expect((await task(admin, p, within)).plan_summary).toMatchObject({
      destroy: 2,
      policy: { passed: true, reasons: [] },
    });
    expect((await admin.post(`/api/project/${p}/tasks/${within}/confirm`)).statusCode).toBe(204);
    expect((await waitForTask(admin, p, within, undefined, 120_000)).status).toBe('success');
    expect((await taskLog(admin, p, within)).join('\n')).toMatch(/Destroy complete|2 destroyed/);
  });

  it('deny_create_types blocks creating a type and passes others', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'main.tf': config(1) }), {
      app: 'terraform',
      playbook: '',
      task_params: { policy: { deny_create_types: ['terraform_data'] } },
    });
    const denied = await runTask(admin, p, { template_id: s.templateId });
    expect((await waitForTask(admin, p, denied, undefined, 120_000)).status).toBe('rejected');
    expect((await task(admin, p, denied)).plan_summary.policy.reasons).toEqual([
      expect.objectContaining({
        code: 'policy_deny_create',
        params: { type: 'terraform_data', addresses: 'terraform_data.r0' },
      }),
    ]);

    await saveTemplate(admin, s, 'terraform', { policy: { deny_create_types: ['null_*'] } });
    const passed = await runTask(admin, p, { template_id: s.templateId });
    await waitForTask(admin, p, passed, ['waiting_confirmation'], 120_000);
    expect((await task(admin, p, passed)).plan_summary.policy).toMatchObject({ passed: true });
    expect((await admin.post(`/api/project/${p}/tasks/${passed}/reject`)).statusCode).toBe(204);
  });

  it("destroys_need_owner: the plan waits even with auto-approve, a manager's confirm is refused, an owner's applies", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'main.tf': config(1) }), {
      app: 'terraform',
      playbook: '',
      task_params: { allow_auto_approve: true, allow_destroy: true, policy: { destroys_need_owner: true } },
    });
    await apply(admin, p, s.templateId);
    const manager = await signedInUser(t());
    const owner = await signedInUser(t());
    await addMember(t(), p, manager.id, 'manager');
    await addMember(t(), p, owner.id, 'owner');

    const id = await runTask(manager, p, { template_id: s.templateId, params: { destroy: true, auto_approve: true } });
    await waitForTask(manager, p, id, ['waiting_confirmation'], 120_000);
    expect((await task(manager, p, id)).plan_summary).toMatchObject({
      destroy: 1,
      policy: { passed: true, confirm_role: 'owner' },
    });
    const refused = await manager.post(`/api/project/${p}/tasks/${id}/confirm`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      error: 'Only a project owner may confirm this plan',
      code: 'confirm_role_required',
      role: 'owner',
    });
    expect((await task(manager, p, id)).status).toBe('waiting_confirmation');
    expect((await owner.post(`/api/project/${p}/tasks/${id}/confirm`)).statusCode).toBe(204);
    expect((await waitForTask(owner, p, id, undefined, 120_000)).status).toBe('success');
    expect((await task(owner, p, id)).plan_confirmation).toMatchObject({ user_id: owner.id });
  });

  it('drift_check schedules and tasks: saved with their type, refused for a template that is not Terraform/OpenTofu', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'main.tf': config(1) }), { app: 'terraform', playbook: '' });
    const created = await admin.post(`/api/project/${p}/schedules`, {
      name: 'nightly drift',
      template_id: s.templateId,
      cron_format: '0 3 * * *',
      type: 'drift_check',
      task_params: { refresh_only: true },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      type: 'drift_check',
      task_params: { environment: '{}', refresh_only: true },
    });
    const read = (await admin.get(`/api/project/${p}/schedules/${created.json().id}`)).json();
    expect(read).toMatchObject({ type: 'drift_check', task_params: { refresh_only: true } });
    const plain = await admin.post(`/api/project/${p}/schedules`, {
      template_id: s.templateId,
      cron_format: '0 4 * * *',
      active: false,
    });
    expect(plain.json()).toMatchObject({ type: '' });
    expect(plain.json().task_params).toBeUndefined();

    // When it fires, the schedule starts a drift check of the template (plan only, recorded).
    expect(await t().app.services.scheduler.tick(new Date(Date.now() + 2 * 86_400_000))).toBe(1);
    const fired = (await admin.get(`/api/project/${p}/tasks`)).json()[0];
    expect(fired).toMatchObject({
      template_id: s.templateId,
      schedule_id: created.json().id,
      message: 'Drift check (schedule nightly drift)',
      params: { drift_check: { refresh_only: true } },
    });
    expect((await waitForTask(admin, p, fired.id, undefined, 120_000)).status).toBe('success');
    expect((await admin.get(`/api/project/${p}/templates/${s.templateId}`)).json().drift).toMatchObject({
      status: 'clean',
      refresh_only: true,
      task_id: fired.id,
    });

    // A backup keeps the kind and restores it; a Semaphore export leaves drift checks out (Semaphore would run them as plain schedules).
    const backup = JSON.parse((await admin.get(`/api/project/${p}/backup?format=gantry`)).body);
    expect(backup.schedules.find((x: { name: string }) => x.name === 'nightly drift')).toMatchObject({
      type: 'drift_check',
      task_params: { refresh_only: true },
    });
    const restored = await admin.post('/api/projects/restore', backup);
    expect(restored.statusCode, restored.body).toBe(201);
    const copies = (await admin.get(`/api/project/${restored.json().id}/schedules`)).json();
    expect(copies.find((x: { name: string }) => x.name === 'nightly drift')).toMatchObject({
      type: 'drift_check',
      task_params: { refresh_only: true },
    });
    const semaphore = JSON.parse((await admin.get(`/api/project/${p}/backup?format=semaphore`)).body);
    expect(semaphore.schedules.map((x: { name: string }) => x.name)).not.toContain('nightly drift');

    const ansible = await admin.post(`/api/project/${p}/templates`, {
      name: 'playbook',
      app: 'ansible',
      playbook: 'site.yml',
      repository_id: s.repositoryId,
      environment_id: s.environmentId,
      inventory_id: (
        await admin.post(`/api/project/${p}/inventory`, {
          name: 'hosts',
          type: 'static',
          inventory: 'localhost',
          ssh_key_id: s.keyId,
        })
      ).json().id,
    });
    expect(ansible.statusCode, ansible.body).toBe(201);
    const refused = await admin.post(`/api/project/${p}/schedules`, {
      template_id: ansible.json().id,
      cron_format: '0 3 * * *',
      type: 'drift_check',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'drift_not_terraform' });
    const task400 = await admin.post(`/api/project/${p}/tasks`, {
      template_id: ansible.json().id,
      params: { drift_check: {} },
    });
    expect(task400.statusCode).toBe(400);
    expect(task400.json()).toMatchObject({ code: 'drift_not_terraform' });
  });

  it('a drift check finds a commit nobody applied (workspace and template drifted), and is clean after the apply', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'main.tf': config(1, 'v1') });
    const s = await setupTemplate(admin, p, repo, {
      app: 'terraform',
      playbook: '',
      task_params: { allow_auto_approve: true },
    });
    const ws = (
      await admin.post(`/api/project/${p}/inventory`, {
        name: 'prod',
        type: 'terraform-workspace',
        inventory: 'prod',
        ssh_key_id: s.keyId,
      })
    ).json().id;
    expect(
      (await admin.post(`/api/project/${p}/templates/${s.templateId}/inventory/${ws}/set_default`)).statusCode,
    ).toBe(204);
    expect((await admin.get(`/api/project/${p}/inventory/${ws}`)).json().drift).toEqual({
      status: 'unknown',
      checked_at: null,
      summary: null,
      task_id: null,
      template_id: null,
      refresh_only: false,
    });
    await apply(admin, p, s.templateId);
    commitFiles(repo, { 'main.tf': config(1, 'v2') }, [], 'change the input, never applied');
    const told = vi.spyOn(t().app.services.notifications, 'driftFound');

    const check = await runTask(admin, p, {
      template_id: s.templateId,
      params: { drift_check: { refresh_only: false } },
    });
    const ended = await waitForTask(admin, p, check, undefined, 120_000);
    expect(ended.status, (await taskLog(admin, p, check)).join('\n')).toBe('success');
    const drift = (await admin.get(`/api/project/${p}/inventory/${ws}`)).json().drift;
    expect(drift).toMatchObject({ status: 'drifted', task_id: check, template_id: s.templateId, refresh_only: false });
    expect(drift.summary).toMatchObject({ create: 0, update: 1, replace: 0, destroy: 0 });
    expect(drift.summary.resources).toEqual([
      expect.objectContaining({ address: 'terraform_data.r0', action: 'update' }),
    ]);
    expect(Date.parse(drift.checked_at)).not.toBeNaN();
    const listed = (await admin.get(`/api/project/${p}/inventory`)).json();
    expect(listed.find((i: { id: number }) => i.id === ws).drift.status).toBe('drifted');
    expect((await admin.get(`/api/project/${p}/templates/${s.templateId}`)).json().drift).toMatchObject({
      status: 'drifted',
      task_id: check,
    });
    const templates = (await admin.get(`/api/project/${p}/templates`)).json();
    expect(templates.find((x: { id: number }) => x.id === s.templateId).drift.status).toBe('drifted');
    // Nothing was applied: the state's resource still has its old input.
    expect((await taskLog(admin, p, check)).join('\n')).not.toMatch(/Apply complete/);
    expect(told).toHaveBeenCalledTimes(1);
    expect(told).toHaveBeenCalledWith(check, 'prod', expect.objectContaining({ update: 1 }));
    // The same drift found again is no news.
    const same = await runTask(admin, p, { template_id: s.templateId, params: { drift_check: {} } });
    expect((await waitForTask(admin, p, same, undefined, 120_000)).status).toBe('success');
    expect((await admin.get(`/api/project/${p}/inventory/${ws}`)).json().drift).toMatchObject({
      status: 'drifted',
      task_id: same,
    });
    expect(told).toHaveBeenCalledTimes(1);

    // The refresh-only variant ignores configuration changes: nothing changed outside, so clean.
    const refresh = await runTask(admin, p, {
      template_id: s.templateId,
      params: { drift_check: { refresh_only: true } },
    });
    expect((await waitForTask(admin, p, refresh, undefined, 120_000)).status).toBe('success');
    expect((await admin.get(`/api/project/${p}/inventory/${ws}`)).json().drift).toMatchObject({
      status: 'clean',
      refresh_only: true,
      task_id: refresh,
    });

    await apply(admin, p, s.templateId);
    const again = await runTask(admin, p, { template_id: s.templateId, params: { drift_check: {} } });
    expect((await waitForTask(admin, p, again, undefined, 120_000)).status).toBe('success');
    expect((await admin.get(`/api/project/${p}/inventory/${ws}`)).json().drift).toMatchObject({
      status: 'clean',
      summary: null,
      task_id: again,
    });
    expect((await admin.get(`/api/project/${p}/templates/${s.templateId}`)).json().drift).toMatchObject({
      status: 'clean',
    });
  });

  it('a drift check plans any workspace of its template, chosen by a task or a schedule, and no other', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'main.tf': config(1) }), { app: 'terraform', playbook: '' });
    const workspace = async (name: string): Promise<number> =>
      (
        await admin.post(`/api/project/${p}/inventory`, {
          name,
          type: 'terraform-workspace',
          inventory: name,
          ssh_key_id: s.keyId,
        })
      ).json().id;
    const prod = await workspace('prod');
    const staging = await workspace('staging');
    const elsewhere = await workspace('elsewhere');
    for (const [action, id] of [
      ['set_default', prod],
      ['attach', staging],
    ] as const)
      expect(
        (await admin.post(`/api/project/${p}/templates/${s.templateId}/inventory/${id}/${action}`)).statusCode,
      ).toBe(204);

    // The template lets no ordinary run choose its workspace; a drift check may take any of its own.
    const check = await runTask(admin, p, {
      template_id: s.templateId,
      inventory_id: staging,
      params: { drift_check: {} },
    });
    const ended = await waitForTask(admin, p, check, undefined, 120_000);
    expect(ended, (await taskLog(admin, p, check)).join('\n')).toMatchObject({
      status: 'success',
      inventory_id: staging,
    });
    expect((await admin.get(`/api/project/${p}/inventory/${staging}`)).json().drift).toMatchObject({
      status: 'drifted',
      task_id: check,
      summary: { create: 1 },
    });
    expect((await admin.get(`/api/project/${p}/inventory/${prod}`)).json().drift.status).toBe('unknown');
    const refused = await admin.post(`/api/project/${p}/tasks`, {
      template_id: s.templateId,
      inventory_id: elsewhere,
      params: { drift_check: {} },
    });
    expect([refused.statusCode, refused.json()]).toEqual([
      400,
      expect.objectContaining({ code: 'run_choice_not_offered', field: 'inventory_id' }),
    ]);
    const foreign = await admin.post(`/api/project/${p}/tasks`, {
      template_id: s.templateId,
      inventory_id: 999_999,
      params: { drift_check: {} },
    });
    expect([foreign.statusCode, foreign.json().code]).toEqual([400, 'not_in_project']);

    // A schedule names the workspace it checks; its task plans that one.
    const bad = await admin.post(`/api/project/${p}/schedules`, {
      template_id: s.templateId,
      cron_format: '0 3 * * *',
      type: 'drift_check',
      task_params: { inventory_id: elsewhere },
    });
    expect([bad.statusCode, bad.json().code]).toEqual([400, 'run_choice_not_offered']);
    const created = await admin.post(`/api/project/${p}/schedules`, {
      name: 'staging drift',
      template_id: s.templateId,
      cron_format: '0 3 * * *',
      type: 'drift_check',
      task_params: { inventory_id: staging },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().task_params).toMatchObject({ inventory_id: staging, refresh_only: false });
    expect(await t().app.services.scheduler.tick(new Date(Date.now() + 2 * 86_400_000))).toBe(1);
    const fired = (await admin.get(`/api/project/${p}/tasks`)).json()[0];
    expect(fired).toMatchObject({ schedule_id: created.json().id, inventory_id: staging });
    expect((await waitForTask(admin, p, fired.id, undefined, 120_000)).status).toBe('success');

    // A backup keeps the schedule's workspace, renumbered as the restored project's.
    const backup = JSON.parse((await admin.get(`/api/project/${p}/backup?format=gantry`)).body);
    const restored = await admin.post('/api/projects/restore', backup);
    expect(restored.statusCode, restored.body).toBe(201);
    const q = restored.json().id;
    const copy = (await admin.get(`/api/project/${q}/schedules`)).json()[0];
    const copiedStaging = (await admin.get(`/api/project/${q}/inventory`))
      .json()
      .find((i: { name: string }) => i.name === 'staging').id;
    expect(copy.task_params).toMatchObject({ inventory_id: copiedStaging });
  });

  it('a stale local plan is refused: task A waits, task B applies, confirming A changes nothing', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(
      admin,
      p,
      gitRepo({
        'main.tf':
          'variable "v" {\n  default = "a"\n}\nresource "terraform_data" "r" {\n  input = var.v\n}\noutput "v" {\n  value = terraform_data.r.output\n}\n',
      }),
      {
        app: 'terraform',
        playbook: '',
        allow_extra_vars_in_task: true,
        task_params: { allow_auto_approve: true },
      },
    );
    const a = await runTask(admin, p, { template_id: s.templateId, environment: '{"v": "from-a"}' });
    await waitForTask(admin, p, a, ['waiting_confirmation'], 120_000);
    const b = await apply(admin, p, s.templateId);
    expect(b).toBeGreaterThan(a);
    expect((await admin.post(`/api/project/${p}/tasks/${a}/confirm`)).statusCode).toBe(204);
    expect((await waitForTask(admin, p, a, undefined, 120_000)).status).toBe('error');
    const log = (await taskLog(admin, p, a)).join('\n');
    expect(log).toMatch(/The state changed since this plan was made/);
    expect(log).not.toMatch(/Apply complete/);
    // The state is B's: a plan-only run sees nothing to change with B's value.
    const plan = await runTask(admin, p, { template_id: s.templateId, params: { plan: true } });
    expect((await waitForTask(admin, p, plan, undefined, 120_000)).status).toBe('success');
    expect((await task(admin, p, plan)).plan_summary).toMatchObject({ create: 0, update: 0, replace: 0, destroy: 0 });
  });
});

describe.each(engines)('terraform governance from a remote runner ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_USE_REMOTE_RUNNER: 'true' });

  it("takes a runner's plan summary and drift finding for its own task only, authenticated as its other reports", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const runner = (await admin.post('/api/runners', { name: 'tf', tag: 'tf' })).json();
    const other = (await admin.post('/api/runners', { name: 'other', tag: 'other' })).json();
    const s = await setupTemplate(admin, p, gitRepo({ 'main.tf': config(1) }), {
      app: 'terraform',
      playbook: '',
      runner_tag: 'tf',
    });
    const ws = (
      await admin.post(`/api/project/${p}/inventory`, {
        name: 'stage',
        type: 'terraform-workspace',
        inventory: 'stage',
        ssh_key_id: s.keyId,
      })
    ).json().id;
    expect(
      (await admin.post(`/api/project/${p}/templates/${s.templateId}/inventory/${ws}/set_default`)).statusCode,
    ).toBe(204);
    const call = (token: string | null, url: string, payload: object) =>
      t().app.inject({
        method: 'POST',
        url: `/api/internal/runners${url}`,
        headers: token ? { authorization: `Bearer ${token}` } : {},
        payload,
      });
    const summary = {
      create: 0,
      update: 1,
      replace: 0,
      destroy: 0,
      resources: [{ address: 'terraform_data.r0', type: 'terraform_data', action: 'update', changes: [] }],
    };

    const id = await runTask(admin, p, { template_id: s.templateId });
    const polled = await call(runner.token, '/poll', { running: [] });
    expect(polled.json().jobs.map((j: { task_id: number }) => j.task_id)).toEqual([id]);
    expect((await call(null, `/tasks/${id}/terraform`, { plan_summary: summary })).statusCode).toBe(401);
    expect(
      (await call(other.token, `/tasks/${id}/terraform`, { plan_summary: summary })).statusCode,
    ).toBeGreaterThanOrEqual(400);
    expect((await task(admin, p, id)).plan_summary).toBeNull();
    expect((await call(runner.token, `/tasks/${id}/terraform`, { plan_summary: { create: 'x' } })).statusCode).toBe(
      400,
    );
    expect((await call(runner.token, `/tasks/${id}/terraform`, { plan_summary: summary })).statusCode).toBe(204);
    expect((await task(admin, p, id)).plan_summary).toMatchObject({
      update: 1,
      resources: [{ address: 'terraform_data.r0', action: 'update' }],
    });

    const drift = await call(runner.token, `/tasks/${id}/terraform`, {
      drift: { drifted: true, summary, refresh_only: false },
    });
    expect(drift.statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/inventory/${ws}`)).json().drift).toMatchObject({
      status: 'drifted',
      task_id: id,
      summary: { update: 1 },
    });
    // Once the task ended, the runner's reports are refused as its other reports are.
    expect((await call(runner.token, `/tasks/${id}/status`, { status: 'success' })).statusCode).toBe(204);
    expect((await call(runner.token, `/tasks/${id}/terraform`, { plan_summary: summary })).statusCode).toBe(409);
  });
});
