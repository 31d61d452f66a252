import { describe, expect, it } from 'vitest';
import { createProject, engines, signedInUser, uniq, useTestApp } from '../test/harness.js';
import { createKey, createRepository } from '../test/resources.js';
import { scriptClient } from './script-client.js';

/**
 * `null` as Semaphore's clients send it (Go's nil pointers, the console's empty form fields): it
 * means "not given" for an optional field and "empty" for a nullable one; a 400 names the field.
 */
describe.each(engines)('compat: null in request bodies ($name)', (engine) => {
  const t = useTestApp(engine);

  it('treats null as not given on a project, a key, a repository and a variable group', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const api = await scriptClient(t(), admin);
    const name = uniq('nulls');
    const project = await api.send('POST', '/api/projects', { name, type: null, alert: null, alert_chat: null, max_parallel_tasks: null, demo: null });
    expect(project.statusCode, project.body).toBe(201);
    expect(project.json()).toMatchObject({ name, type: '', alert: false, alert_chat: null, max_parallel_tasks: 0 });
    const p = project.json().id as number;

    const key = await api.send('POST', `/api/project/${p}/keys`, { name: 'none key', type: 'none', project_id: p, login_password: null, ssh: null, override_secret: null });
    expect(key.statusCode, key.body).toBe(201);
    const keyId = key.json().id as number;

    const repo = await api.send('POST', `/api/project/${p}/repositories`, {
      name: 'repo',
      project_id: p,
      git_url: 'https://example.com/org/repo.git',
      git_branch: 'main',
      ssh_key_id: keyId,
    });
    expect(repo.statusCode, repo.body).toBe(201);

    const env = await api.send('POST', `/api/project/${p}/environment`, { name: 'vars', project_id: p, password: null, json: '{}', env: null, secrets: null });
    expect(env.statusCode, env.body).toBe(201);
    const envId = env.json().id as number;
    const read = await api.send('GET', `/api/project/${p}/environment/${envId}`);
    expect(read.json()).toMatchObject({ name: 'vars', json: '{}' });
  });

  it('keeps stored values when an update sends null for optional fields', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const changed = await admin.put(`/api/project/${p}`, { name: 'renamed', alert: true, alert_chat: 'ops', max_parallel_tasks: 3 });
    expect(changed.statusCode, changed.body).toBe(204);
    const nulls = await admin.put(`/api/project/${p}`, { name: 'renamed again', alert: null, alert_chat: null, max_parallel_tasks: null, type: null });
    expect(nulls.statusCode, nulls.body).toBe(204);
    // alert_chat is nullable (Semaphore's *string): null empties it; the others were not given.
    expect((await admin.get(`/api/project/${p}`)).json()).toEqual(expect.objectContaining({ name: 'renamed again', alert: true, alert_chat: null, max_parallel_tasks: 3 }));
  });

  it('accepts a template as Semaphore console sends it, nulls included', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const key = await createKey(admin, p);
    const repo = await createRepository(admin, p, key);
    const env = (await admin.post(`/api/project/${p}/environment`, { name: 'empty', json: '{}' })).json().id as number;
    const res = await admin.post(`/api/project/${p}/templates`, {
      project_id: p,
      name: 'from semaphore',
      playbook: 'build.sh',
      repository_id: repo,
      inventory_id: null,
      environment_id: env,
      description: null,
      arguments: null,
      git_branch: null,
      view_id: null,
      build_template_id: null,
      start_version: null,
      survey_vars: null,
      vaults: null,
      task_params: null,
      type: '',
      app: 'bash',
      autorun: false,
      suppress_success_alerts: null,
      allow_override_args_in_task: null,
    });
    expect(res.statusCode, res.body).toBe(201);
    const tpl = (await admin.get(`/api/project/${p}/templates/${res.json().id}`)).json();
    expect(tpl).toMatchObject({ name: 'from semaphore', playbook: 'build.sh', app: 'bash', inventory_id: null, view_id: null });
  });

  it('names the field when null is refused for a required one', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const before = (await admin.get('/api/projects')).json().length as number;
    const res = await admin.post('/api/projects', { name: null, type: null });
    expect(res.statusCode).toBe(400);
    expect(res.json().field).toBe('name');
    expect(res.json().error).toMatch(/name/i);
    const p = await createProject(admin);
    const key = await admin.post(`/api/project/${p}/keys`, { name: 'k', type: null });
    expect(key.statusCode).toBe(400);
    expect(key.json().field).toBe('type');
    expect(key.json().error).toMatch(/type/i);
    expect((await admin.get('/api/projects')).json()).toHaveLength(before + 1);
  });
});
