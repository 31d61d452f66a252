import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inventorySchema } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { LOCAL_PATH_NOT_ALLOWED } from '../platform/local-paths.js';
import { TEST_ALLOWED_LOCAL_PATHS, gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../test/harness.js';
import { createKey } from '../test/resources.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../test/tasks.js';
import { scriptClient } from './script-client.js';

const PLAYBOOK = `
- hosts: all
  gather_facts: false
  tasks:
    - ansible.builtin.debug:
        msg: "inventory host {{ inventory_hostname }} in {{ group_names | join(',') }}"
`;

/** An admin's folder of inventory files, outside any repository; listed in GANTRY_ALLOWED_LOCAL_PATHS below. */
const INVENTORY_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-inventories-'));
const HOSTS = path.join(INVENTORY_DIR, 'hosts.ini');
fs.writeFileSync(HOSTS, '[edge]\nabs-host ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n', {
  mode: 0o644,
});
// What ansible reads beside the inventory file.
fs.mkdirSync(path.join(INVENTORY_DIR, 'group_vars'), { mode: 0o755 });
fs.writeFileSync(path.join(INVENTORY_DIR, 'group_vars', 'edge.yml'), 'from_group_vars: beside the file\n', {
  mode: 0o644,
});
fs.chmodSync(INVENTORY_DIR, 0o755);

describe.each(engines)('Semaphore clients: absolute file inventories ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_ALLOWED_LOCAL_PATHS: `${TEST_ALLOWED_LOCAL_PATHS},${INVENTORY_DIR}` });

  it('runs ansible against an inventory file below GANTRY_ALLOWED_LOCAL_PATHS, group_vars beside it included', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const client = await scriptClient(t(), admin);
    const repo = gitRepo({
      'site.yml': `${PLAYBOOK}    - ansible.builtin.debug:\n        msg: "group var {{ from_group_vars }}"\n`,
    });
    // As Semaphore's clients send it: the path as is, no credentials (ssh_key_id is nullable there).
    const inv = await client.send('POST', `/api/project/${p}/inventory`, {
      project_id: p,
      name: 'etc hosts',
      type: 'file',
      inventory: HOSTS,
    });
    expect(inv.statusCode, inv.body).toBe(201);
    expect(inv.json()).toMatchObject({ inventory: HOSTS, ssh_key_id: null, repository_id: null, holder_id: null });
    const s = await setupTemplate(admin, p, repo, {
      app: 'ansible',
      playbook: 'site.yml',
      inventory_id: inv.json().id,
    });
    const id = await runTask(admin, p, { template_id: s.templateId });
    const task = await waitForTask(admin, p, id);
    const log = (await taskLog(admin, p, id)).join('\n');
    expect(task.status, log).toBe('success');
    expect(log).toContain('inventory host abs-host in edge');
    expect(log).toContain('group var beside the file');
  }, 90_000);

  it('refuses a path outside the list with a 400 naming GANTRY_ALLOWED_LOCAL_PATHS, and `..` anywhere', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const key = await createKey(admin, p);
    for (const inventory of ['/etc/ansible/hosts', path.join(path.dirname(INVENTORY_DIR), 'elsewhere', 'hosts')]) {
      const res = await admin.post(`/api/project/${p}/inventory`, {
        name: 'x',
        type: 'file',
        inventory,
        ssh_key_id: key,
      });
      expect([inventory, res.statusCode, res.json()]).toEqual([
        inventory,
        400,
        {
          error: expect.stringContaining('GANTRY_ALLOWED_LOCAL_PATHS'),
          code: LOCAL_PATH_NOT_ALLOWED,
          field: 'inventory',
        },
      ]);
    }
    const climb = await admin.post(`/api/project/${p}/inventory`, {
      name: 'x',
      type: 'file',
      inventory: `${INVENTORY_DIR}/../${path.basename(INVENTORY_DIR)}/hosts.ini`,
      ssh_key_id: key,
    });
    expect(climb.statusCode).toBe(400);
    // A path inside the repository still saves.
    const rel = await admin.post(`/api/project/${p}/inventory`, {
      name: 'rel',
      type: 'file',
      inventory: 'inventories/prod.ini',
      ssh_key_id: key,
    });
    expect(rel.statusCode).toBe(201);
    expect((await admin.get(`/api/project/${p}/inventory`)).json().map((i: { name: string }) => i.name)).toEqual([
      'rel',
    ]);
  });
});

describe.each(engines)('Semaphore clients: inventory shapes ($name)', (engine) => {
  const t = useTestApp(engine);

  it('answers with `holder_id` (the template holding a workspace, else null) and a nullable `ssh_key_id`', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const api = await scriptClient(t(), admin);
    const p = await createProject(admin);
    const created = await api.send('POST', `/api/project/${p}/inventory`, {
      project_id: p,
      name: 'hosts',
      type: 'static',
      inventory: 'localhost',
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as number;
    const expected = {
      id,
      project_id: p,
      name: 'hosts',
      type: 'static',
      inventory: 'localhost',
      ssh_key_id: null,
      become_key_id: null,
      repository_id: null,
      template_id: null,
      holder_id: null,
      // Gantry's own (issue 25): a file inventory's branch, the last read of a file or URL inventory.
      git_branch: null,
      last_read_at: null,
      last_error: null,
    };
    expect(created.json()).toEqual(expected);
    expect((await api.send('GET', `/api/project/${p}/inventory/${id}`)).json()).toEqual(expected);
    expect((await api.send('GET', `/api/project/${p}/inventory`)).json()).toEqual([expected]);
    expect(inventorySchema.parse(expected)).toEqual(expected);

    // A workspace attached to a template: that template holds it.
    const s = await setupTemplate(admin, p, gitRepo({ 'main.tf': '' }), { app: 'terraform', playbook: '' });
    const ws = (
      await api.send('POST', `/api/project/${p}/inventory`, {
        name: 'prod',
        type: 'terraform-workspace',
        inventory: 'prod',
      })
    ).json().id;
    expect((await admin.post(`/api/project/${p}/templates/${s.templateId}/inventory/${ws}/attach`)).statusCode).toBe(
      204,
    );
    expect((await api.send('GET', `/api/project/${p}/inventory/${ws}`)).json()).toMatchObject({
      template_id: s.templateId,
      holder_id: s.templateId,
      ssh_key_id: null,
    });
  });

  it('sets and clears the credentials of an inventory; a key of another project is still refused', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const api = await scriptClient(t(), admin);
    const p = await createProject(admin);
    const key = await createKey(admin, p);
    const id = (
      await api.send('POST', `/api/project/${p}/inventory`, {
        name: 'h',
        type: 'static',
        inventory: 'a',
        ssh_key_id: key,
      })
    ).json().id;
    const read = (await api.send('GET', `/api/project/${p}/inventory/${id}`)).json();
    expect(read.ssh_key_id).toBe(key);
    const cleared = await api.send('PUT', `/api/project/${p}/inventory/${id}`, { ...read, ssh_key_id: null });
    expect(cleared.statusCode, cleared.body).toBe(204);
    expect((await api.send('GET', `/api/project/${p}/inventory/${id}`)).json().ssh_key_id).toBeNull();
    const other = await createProject(admin);
    const foreign = await createKey(admin, other);
    const refused = await api.send('PUT', `/api/project/${p}/inventory/${id}`, { ...read, ssh_key_id: foreign });
    expect([refused.statusCode, refused.json().error]).toEqual([400, 'User credentials not found in this project']);
    expect((await api.send('GET', `/api/project/${p}/inventory/${id}`)).json().ssh_key_id).toBeNull();
  });
});
