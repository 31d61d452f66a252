import { describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';

const download = async (c: Caller, p: number, format: 'gantry' | 'semaphore') =>
  JSON.parse((await c.get(`/api/project/${p}/backup?format=${format}`)).body);

const id = async (res: { statusCode: number; body: string; json<T>(): T }) => {
  if (res.statusCode !== 201) throw new Error(`${res.statusCode} ${res.body}`);
  return res.json<{ id: number }>().id;
};

const SURVEY = [
  { name: 'count', title: 'Count', type: 'int', min: 1, max: 9, default_value: '2' },
  { name: 'ratio', title: 'Ratio', type: 'number', min: 0, max: 1 },
  { name: 'go', title: 'Go', type: 'boolean', default_value: 'true' },
  { name: 'zones', title: 'Zones', type: 'multi_enum', values: [{ name: 'A', value: 'a' }, { name: 'B', value: 'b' }], default_value: '["a"]' },
  { name: 'when', title: 'When', type: 'date' },
  { name: 'notes', title: 'Notes', type: 'text', regex: '^[a-z ]*$' },
];

/** A project with three variable groups, two inventories (one a repository file at a branch), a template using the lists, and a schedule with answers. */
async function project(admin: Caller) {
  const p = await createProject(admin);
  const key = await id(await admin.post(`/api/project/${p}/keys`, { name: 'none', type: 'none' }));
  const repo = await id(await admin.post(`/api/project/${p}/repositories`, { name: 'repo', git_url: gitRepo({ 'site.yml': '- hosts: all\n' }), ssh_key_id: key }));
  const envs: number[] = [];
  for (const name of ['base', 'prod', 'extra']) envs.push(await id(await admin.post(`/api/project/${p}/environment`, { name, json: '{}', env: '{}' })));
  const inline = await id(await admin.post(`/api/project/${p}/inventory`, { name: 'inline', type: 'static', inventory: 'web', ssh_key_id: key }));
  const file = await id(
    await admin.post(`/api/project/${p}/inventory`, { name: 'from repo', type: 'file', inventory: 'hosts.ini', repository_id: repo, git_branch: 'inventories', ssh_key_id: key }),
  );
  const tpl = await id(
    await admin.post(`/api/project/${p}/templates`, {
      name: 'site',
      app: 'ansible',
      playbook: 'site.yml',
      repository_id: repo,
      environment_id: envs[0],
      environment_ids: envs,
      inventory_id: inline,
      inventory_ids: [inline, file],
      survey_vars: SURVEY,
      task_params: { allow_override_environment: true, environment_choices: [envs[1], envs[2]], allow_override_inventory: true, inventory_choices: [file] },
    }),
  );
  await id(await admin.post(`/api/project/${p}/schedules`, { name: 'nightly', template_id: tpl, cron_format: '0 3 * * *', task_params: { environment: JSON.stringify({ count: 3, go: false, zones: ['b'] }) } }));
  return { p, tpl };
}

/** What must survive a round trip, by name (ids differ between projects). */
async function shape(admin: Caller, p: number) {
  const envName = new Map<number, string>((await admin.get(`/api/project/${p}/environment`)).json().map((e: { id: number; name: string }) => [e.id, e.name]));
  const invs = (await admin.get(`/api/project/${p}/inventory`)).json() as Array<{ id: number; name: string; type: string; git_branch?: string | null }>;
  const invName = new Map(invs.map((i) => [i.id, i.name]));
  const tpl = (await admin.get(`/api/project/${p}/templates`)).json().find((t: { name: string }) => t.name === 'site');
  const schedule = (await admin.get(`/api/project/${p}/schedules`)).json().find((s: { name: string }) => s.name === 'nightly');
  return {
    fileBranch: invs.find((i) => i.name === 'from repo')?.git_branch,
    environments: tpl.environment_ids.map((x: number) => envName.get(x)),
    inventories: tpl.inventory_ids.map((x: number) => invName.get(x)),
    environmentChoices: tpl.task_params.environment_choices.map((x: number) => envName.get(x)),
    inventoryChoices: tpl.task_params.inventory_choices.map((x: number) => invName.get(x)),
    survey: tpl.survey_vars,
    answers: JSON.parse(schedule.task_params?.environment ?? 'null'),
  };
}

describe.each(engines)('parameters, several groups and inventories in backups ($name)', (engine) => {
  const t = useTestApp(engine);

  it.each(['gantry', 'semaphore'] as const)('a %s-format backup restores typed parameters, the lists, the choices, branches and answers', async (format) => {
    const admin = await signedInUser(t(), { admin: true });
    const { p } = await project(admin);
    const before = await shape(admin, p);
    expect(before).toMatchObject({
      fileBranch: 'inventories',
      environments: ['base', 'prod', 'extra'],
      inventories: ['inline', 'from repo'],
      environmentChoices: ['prod', 'extra'],
      inventoryChoices: ['from repo'],
      answers: { count: 3, go: false, zones: ['b'] },
    });
    const doc = await download(admin, p, format);
    if (format === 'semaphore') {
      // Semaphore's own types where it has them: multi_enum is its select, with a list default.
      const zones = doc.templates[0].survey_vars.find((v: { name: string }) => v.name === 'zones');
      expect(zones).toMatchObject({ type: 'select', default_value: ['a'] });
      expect(doc.templates[0].environments).toEqual(['base', 'prod', 'extra']);
    }
    const res = await admin.post('/api/projects/restore', doc);
    expect(res.statusCode, res.body).toBe(201);
    const after = await shape(admin, res.json<{ id: number }>().id);
    expect(after).toEqual(before);
  });
});
