import { describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../test/harness.js';
import { setupTemplate } from '../test/tasks.js';
import { scriptClient } from './script-client.js';

/**
 * A 400 names the request field it is about, also when a service (not the body schema) refuses:
 * a script learns which of the values it sent to fix, and the English text stays as it was.
 */
describe.each(engines)('Semaphore clients: a refusal names its field ($name)', (engine) => {
  const t = useTestApp(engine);

  it('answers 400 with the unchanged message and the field, across modules, and changes nothing', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const other = await createProject(admin);
    const repo = gitRepo({ 'run.sh': 'echo hi\n' });
    const s = await setupTemplate(admin, p, repo, { playbook: 'run.sh', task_params: { allow_override_limit: true } });
    const foreign = await setupTemplate(admin, other, repo, { playbook: 'run.sh' });
    const api = await scriptClient(t(), admin);
    const refused = async (url: string, body: unknown) => {
      const res = await api.send('POST', url, body);
      return [res.statusCode, res.json()];
    };
    const project = `/api/project/${p}`;
    const lists = ['templates', 'schedules', 'tasks', 'integrations', 'users'];
    const state = async () => Promise.all(lists.map(async (l) => (await api.send('GET', `${project}/${l}`)).json()));
    const before = await state();

    const template = {
      name: 'deploy',
      app: 'ansible',
      playbook: 'site.yml',
      repository_id: s.repositoryId,
      environment_id: s.environmentId,
    };
    expect(await refused(`${project}/templates`, { ...template, inventory_id: 999999 })).toEqual([
      400,
      { error: 'Inventory not found in this project', code: 'not_in_project', label_key: 'inventory', field: 'inventory_id' },
    ]);

    expect(await refused(`${project}/schedules`, { template_id: s.templateId, cron_format: '61 * * * *' })).toEqual([
      400,
      { error: 'Invalid cron: Invalid value for minute: 61', code: 'cron_invalid', field: 'cron_format' },
    ]);
    expect(await refused(`${project}/schedules/validate`, { cron_format: '61 * * * *' })).toEqual([
      400,
      { error: 'Cron: Invalid value for minute: 61', code: 'cron_invalid', field: 'cron_format' },
    ]);

    expect(await refused(`${project}/tasks`, { template_id: s.templateId, params: { limit: ['-e'] } })).toEqual([
      400,
      { error: 'Limit item "-e" is not a plain host pattern or tag', code: 'host_pattern_invalid', label_key: 'limit', item: '-e', field: 'params.limit' },
    ]);
    // Semaphore's top-level `limit` is named as sent.
    expect(await refused(`${project}/tasks`, { template_id: s.templateId, limit: 'web1,-e' })).toEqual([
      400,
      { error: 'Limit item "-e" is not a plain host pattern or tag', code: 'host_pattern_invalid', label_key: 'limit', item: '-e', field: 'limit' },
    ]);

    expect(await refused(`${project}/integrations`, { name: 'hook', template_id: foreign.templateId })).toEqual([
      400,
      { error: 'Template not found in this project', code: 'not_in_project', label_key: 'template', field: 'template_id' },
    ]);

    expect(await refused(`${project}/users`, { user_id: 999999, role: 'task_runner' })).toEqual([
      400,
      { error: 'User not found', code: 'user_not_found', field: 'user_id' },
    ]);

    expect(await state()).toEqual(before);
  });
});
