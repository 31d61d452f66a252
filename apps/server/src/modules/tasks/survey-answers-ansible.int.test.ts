import { describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../../test/tasks.js';

/** Fails unless Ansible received each answer with its type (a boolean, a list, a number) and a string as data. */
const PLAYBOOK = `
- hosts: all
  gather_facts: false
  tasks:
    - ansible.builtin.assert:
        that:
          - dry is sameas true
          - verbose is sameas false
          - tiers is sequence and tiers is not string and tiers is not mapping
          - tiers == ['web', 'db']
          - port is number and port == 5
          - ratio is float and ratio == 0.25
          - slug is string
    - ansible.builtin.debug:
        msg: "typed answers arrived typed; slug {{ slug }}"
`;

describe.each(engines)('typed run parameters in Ansible ($name)', (engine) => {
  const t = useTestApp(engine);

  it('a boolean answer is a boolean, a multiple choice a list and a number a number in the playbook', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const key = (await admin.post(`/api/project/${p}/keys`, { name: 'none', type: 'none' })).json().id;
    const inv = (
      await admin.post(`/api/project/${p}/inventory`, {
        name: 'local',
        type: 'static',
        inventory: 'localhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3',
        ssh_key_id: key,
      })
    ).json().id;
    const s = await setupTemplate(admin, p, gitRepo({ 'site.yml': PLAYBOOK }), {
      app: 'ansible',
      playbook: 'site.yml',
      inventory_id: inv,
      survey_vars: [
        { name: 'dry', title: 'Dry run', type: 'boolean' },
        { name: 'verbose', title: 'Verbose', type: 'boolean', default_value: 'false' },
        {
          name: 'tiers',
          title: 'Tiers',
          type: 'multi_enum',
          values: [
            { name: 'Web', value: 'web' },
            { name: 'DB', value: 'db' },
          ],
        },
        { name: 'port', title: 'Port', type: 'int' },
        { name: 'ratio', title: 'Ratio', type: 'number' },
        { name: 'slug', title: 'Slug', type: '' },
      ],
    });
    // Semaphore-shaped text answers; a string that looks like Jinja stays data.
    const id = await runTask(admin, p, {
      template_id: s.templateId,
      environment: JSON.stringify({ dry: 'true', tiers: '["web","db"]', port: '5', ratio: 0.25, slug: '{{ 7 * 7 }}' }),
    });
    const task = await waitForTask(admin, p, id, undefined, 90_000);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(task.status, log).toBe('success');
    expect(log).toContain('typed answers arrived typed; slug {{ 7 * 7 }}');
  }, 120_000);
});
