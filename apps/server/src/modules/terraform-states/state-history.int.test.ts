import type { PlanSummary, StateDiff, TerraformStateVersion } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { insertReturningId } from '../../db/portable.js';
import { commitFiles, gitRepo } from '../../test/git-fixture.js';
import { addMember, createProject, engines, signedInUser, type Caller, useTestApp } from '../../test/harness.js';
import { createKey } from '../../test/resources.js';
import { runTask, setupTemplate, waitForTask } from '../../test/tasks.js';

const mainTf = (n: string) => `
resource "terraform_data" "secret" {
  input = sensitive("s3cret-attr-${n}")
}

resource "terraform_data" "plain" {
  input = "plain-${n}"
}

resource "terraform_data" "only_${n}" {
  input = "x"
}

output "pw" {
  value     = "s3cret-out-${n}"
  sensitive = true
}

output "greeting" {
  value = "hello-${n}"
}
`;

const summary = (create: number, update: number, destroy: number): PlanSummary => ({
  create,
  update,
  replace: 0,
  destroy,
  resources: [],
  truncated: false,
  output_changes: [],
  refresh_only: false,
  policy: null,
});

async function workspace(c: Caller, p: number, keyId: number, name: string): Promise<number> {
  const res = await c.post(`/api/project/${p}/inventory`, {
    name,
    type: 'terraform-workspace',
    inventory: name,
    ssh_key_id: keyId,
  });
  if (res.statusCode !== 201) throw new Error(`inventory: ${res.body}`);
  return res.json<{ id: number }>().id;
}

describe.each(engines)('terraform state history ($name)', (engine) => {
  const t = useTestApp(engine);

  it('lists versions with their plan and confirmation, and diffs two versions without leaking secrets', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'main.tf': mainTf('one') });
    const s = await setupTemplate(admin, p, repo, {
      app: 'terraform',
      playbook: '',
      task_params: { auto_approve: true },
    });
    const ws = await workspace(admin, p, s.keyId, 'history');
    expect(
      (await admin.post(`/api/project/${p}/templates/${s.templateId}/inventory/${ws}/set_default`)).statusCode,
    ).toBe(204);
    const states = `/api/project/${p}/inventory/${ws}/terraform/states`;

    const first = await runTask(admin, p, { template_id: s.templateId });
    expect((await waitForTask(admin, p, first)).status).toBe('success');
    commitFiles(repo, { 'main.tf': mainTf('two') });
    const second = await runTask(admin, p, { template_id: s.templateId });
    expect((await waitForTask(admin, p, second)).status).toBe('success');

    // The plans as the task engine records them; the second one confirmed by a member.
    const confirmer = await signedInUser(t());
    await addMember(t(), p, confirmer.id, 'manager');
    const db = t().db.db;
    await db.deleteFrom('terraform_plan').where('task_id', 'in', [first, second]).execute();
    const row = (taskId: number, plan: PlanSummary, by: number | null, at: string | null) => ({
      task_id: taskId,
      project_id: p,
      template_id: s.templateId,
      inventory_id: ws,
      summary: JSON.stringify(plan),
      confirm_role: null,
      confirmed_by: by,
      confirmed_at: at,
      created: '2026-01-01T00:00:00.000Z',
    });
    await db
      .insertInto('terraform_plan')
      .values([
        row(first, summary(3, 0, 0), null, null),
        row(second, summary(1, 2, 1), confirmer.id, '2026-01-02T03:04:05.000Z'),
      ])
      .execute();

    const list = (await admin.get(states)).json<TerraformStateVersion[]>();
    expect(list.map((v) => v.task_id)).toEqual([second, first]);
    expect(list[0]!.plan_summary).toMatchObject({ create: 1, update: 2, replace: 0, destroy: 1 });
    expect(list[0]!.confirmed_by).toEqual({
      user_id: confirmer.id,
      user_name: `Name ${confirmer.username}`,
      at: '2026-01-02T03:04:05.000Z',
    });
    expect(list[1]!.plan_summary).toMatchObject({ create: 3, update: 0, destroy: 0 });
    expect(list[1]!.confirmed_by).toBeNull();
    // A plan whose summary cannot be read shows no counts rather than failing the list.
    await db.updateTable('terraform_plan').set({ summary: 'not json' }).where('task_id', '=', first).execute();
    expect((await admin.get(states)).json<TerraformStateVersion[]>()[1]!.plan_summary).toBeNull();

    const [to, from] = list;
    const res = await admin.get(`${states}/diff?from=${from!.id}&to=${to!.id}`);
    expect(res.statusCode).toBe(200);
    for (const secret of ['s3cret-attr-one', 's3cret-attr-two', 's3cret-out-one', 's3cret-out-two'])
      expect(res.body).not.toContain(secret);
    const diff = res.json<StateDiff>();
    expect(diff).toMatchObject({ from: from!.id, to: to!.id });
    const byAddress = Object.fromEntries(diff.resources.map((r) => [r.address, r]));
    expect(Object.keys(byAddress).sort()).toEqual([
      'terraform_data.only_one',
      'terraform_data.only_two',
      'terraform_data.plain',
      'terraform_data.secret',
    ]);
    expect(byAddress['terraform_data.only_one']!.change).toBe('removed');
    expect(byAddress['terraform_data.only_two']!.change).toBe('added');
    expect(byAddress['terraform_data.plain']).toEqual({
      address: 'terraform_data.plain',
      change: 'changed',
      attributes: [
        { path: 'input.value', before: 'plain-one', after: 'plain-two' },
        { path: 'output.value', before: 'plain-one', after: 'plain-two' },
      ],
    });
    // terraform marks `input` sensitive; `output` echoes it unmarked and is hidden all the same.
    expect(byAddress['terraform_data.secret']!.attributes).toEqual([
      { path: 'input', before: '(sensitive)', after: '(sensitive)' },
      { path: 'output.value', before: '(sensitive)', after: '(sensitive)' },
    ]);
    // The state view hides the same values.
    const shown = await admin.get(`${states}/${to!.id}`);
    expect(shown.statusCode).toBe(200);
    expect(shown.body).not.toContain('s3cret-attr-two');
    expect(diff.outputs).toEqual([
      { path: 'greeting', before: 'hello-one', after: 'hello-two' },
      { path: 'pw', before: '(sensitive)', after: '(sensitive)' },
    ]);

    // Reading versions is enough; outsiders see nothing.
    const runner = await signedInUser(t());
    await addMember(t(), p, runner.id, 'task_runner');
    expect((await runner.get(`${states}/diff?from=${from!.id}&to=${to!.id}`)).statusCode).toBe(200);
    const outsider = await signedInUser(t());
    expect((await outsider.get(`${states}/diff?from=${from!.id}&to=${to!.id}`)).statusCode).toBe(404);

    // Versions of another workspace or project, or none at all, are not found here.
    const otherWs = await workspace(admin, p, s.keyId, 'elsewhere');
    const other = await createProject(admin);
    const foreignWs = await workspace(admin, other, await createKey(admin, other), 'foreign');
    const foreign = async (project: number, inventory: number) => {
      const values = {
        project_id: project,
        inventory_id: inventory,
        task_id: null,
        status: '',
        // Never opened: the lookup is scoped to the workspace first.
        state: '{}',
        created: '2026-01-01T00:00:00.000Z',
        serial: 1,
        lineage: 'x',
        resource_count: 0,
        writer_alias: null,
      };
      return insertReturningId(db, 'terraform_state', values);
    };
    for (const id of [await foreign(p, otherWs), await foreign(other, foreignWs), 999_999]) {
      for (const q of [`from=${from!.id}&to=${id}`, `from=${id}&to=${to!.id}`]) {
        const r = await admin.get(`${states}/diff?${q}`);
        expect(r.statusCode).toBe(404);
        expect(r.json()).toEqual({ error: 'State version not found', code: 'state_version_not_found' });
      }
    }
    // Bad queries are refused with a code, never a server error.
    for (const q of ['', `?from=${from!.id}`, `?from=abc&to=${to!.id}`, `?from=-1&to=${to!.id}`]) {
      const r = await admin.get(`${states}/diff${q}`);
      expect(r.statusCode).toBe(400);
      expect(r.json()).toMatchObject({ code: 'invalid_id' });
    }
  });
});
