import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../test/tasks.js';

const TERRAFORM = '/usr/local/bin/terraform';
const MAIN_TF = `
variable "greeting" {
  type    = string
  default = "none"
}
resource "terraform_data" "example" {
  input = var.greeting
}
output "greeting" {
  value = terraform_data.example.output
}
`;

// A PATH where `tofu` is terraform, as OpenTofu is driven the same way.
const binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-tofu-'));
fs.symlinkSync(TERRAFORM, path.join(binDir, 'tofu'));
const env = { PATH: `${binDir}:${process.env.PATH}` };

describe.each(engines)('terraform and tofu ($name)', (engine) => {
  const t = useTestApp(engine, env);

  it('has terraform on this machine', () => {
    expect(fs.existsSync(TERRAFORM)).toBe(true);
  });

  for (const app of ['terraform', 'tofu'] as const) {
    it(`${app}: plan, wait for confirmation, confirm, apply; state carries to the next run`, async () => {
      const admin = await signedInUser(t(), { admin: true });
      const p = await createProject(admin);
      const repo = gitRepo({ 'infra/main.tf': MAIN_TF });
      const s = await setupTemplate(admin, p, repo, { app, playbook: 'infra' }, { json: '{"greeting": "hello-tf"}' });
      const id = await runTask(admin, p, { template_id: s.templateId });
      await waitForTask(admin, p, id, ['waiting_confirmation']);
      const planned = (await taskLog(admin, p, id)).join('\n');
      expect(planned).toMatch(/Plan: 1 to add/);
      expect(planned).not.toMatch(/Apply complete/);
      expect((await admin.post(`/api/project/${p}/tasks/${id}/confirm`)).statusCode).toBe(204);
      const done = await waitForTask(admin, p, id);
      expect(done.status).toBe('success');
      const log = (await taskLog(admin, p, id)).join('\n');
      expect(log).toMatch(/Apply complete! Resources: 1 added/);
      expect(log).toMatch(/greeting = "hello-tf"/);

      const state = await admin.get(`/api/project/${p}/templates/${s.templateId}/terraform/state`);
      expect(state.json()).toMatchObject({ resources: ['terraform_data.example'], outputs: ['greeting'] });
      expect(state.body).not.toContain('hello-tf');

      // The second run sees the state the first one applied.
      const second = await runTask(admin, p, { template_id: s.templateId, params: { plan: true } });
      expect((await waitForTask(admin, p, second)).status).toBe('success');
      expect((await taskLog(admin, p, second)).join('\n')).toMatch(/No changes/);
    });
  }

  it('ends as rejected when the plan is rejected, and applies at once with auto-approve', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'main.tf': MAIN_TF });
    // The task gives `greeting` as a free extra variable, which the template allows.
    const s = await setupTemplate(admin, p, repo, { app: 'terraform', playbook: '', allow_extra_vars_in_task: true, task_params: { allow_auto_approve: true } });
    expect((await admin.get(`/api/project/${p}/templates/${s.templateId}/terraform/state`)).json()).toEqual({ error: 'No state available.', code: 'state_not_found' });
    const id = await runTask(admin, p, { template_id: s.templateId });
    await waitForTask(admin, p, id, ['waiting_confirmation']);
    expect((await admin.post(`/api/project/${p}/tasks/${id}/confirm`, undefined)).statusCode).toBe(204);
    await waitForTask(admin, p, id);

    const rejected = await runTask(admin, p, { template_id: s.templateId, environment: '{"greeting": "changed"}' });
    await waitForTask(admin, p, rejected, ['waiting_confirmation']);
    expect((await admin.post(`/api/project/${p}/tasks/${rejected}/reject`)).statusCode).toBe(204);
    expect((await waitForTask(admin, p, rejected)).status).toBe('rejected');
    expect((await admin.post(`/api/project/${p}/tasks/${rejected}/confirm`)).statusCode).toBe(409);

    const auto = await runTask(admin, p, { template_id: s.templateId, environment: '{"greeting": "auto"}', params: { auto_approve: true } });
    const done = await waitForTask(admin, p, auto);
    expect(done.status).toBe('success');
    expect((await taskLog(admin, p, auto)).join('\n')).toMatch(/greeting = "auto"/);
  });
});
