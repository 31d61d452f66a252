import { INTEGRATION_ALIAS_PATTERN } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { createKey } from '../../test/resources.js';
import { bashTemplate } from '../../test/webhooks.js';

const empty = { templates: [], inventories: [], repositories: [], schedules: [], integrations: [] };

describe.each(engines)('integrations ($name)', (engine) => {
  const t = useTestApp(engine);

  it('creates, validates, lists, updates and deletes integrations; never shows the secret', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const tpl = await bashTemplate(admin, p);
    const secret = await createKey(admin, p, 'login_password', 'hook secret');
    const noneKey = await createKey(admin, p, 'none', 'empty');
    const other = await createProject(admin);
    const otherTpl = await bashTemplate(admin, other);
    const otherKey = await createKey(admin, other, 'login_password');
    const url = `/api/project/${p}/integrations`;
    const valid = { name: 'push', template_id: tpl, auth_method: 'github', auth_secret_id: secret };

    const bad = async (body: object, message: string) => {
      const r = await admin.post(url, { ...valid, ...body });
      expect(r.statusCode).toBe(400);
      expect(r.json()).toMatchObject({ error: message, code: expect.any(String), field: expect.any(String) });
    };
    await bad({ name: '' }, 'Name is required');
    await bad({ name: undefined }, 'Name is required');
    await bad({ template_id: undefined }, 'Template is required');
    await bad({ template_id: otherTpl }, 'Template not found in this project');
    await bad({ auth_secret_id: undefined }, 'Secret is required');
    await bad({ auth_secret_id: otherKey }, 'Secret not found in this project');
    await bad({ auth_secret_id: noneKey }, 'The secret must be a login with password key');
    await bad({ auth_method: 'hmac', auth_header: 'Bad Header' }, 'Auth header must be a valid header name');
    await bad({ task_params: { environment: '[1]' } }, 'Extra variables must be a JSON object');
    await bad(
      { task_params: { environment: '{"ansible_python_interpreter": "/bin/sh"}' } },
      'Variable ansible_python_interpreter is reserved',
    );
    await bad({ task_params: { environment: '{"LD_PRELOAD": "/x.so"}' } }, 'Variable LD_PRELOAD is reserved');
    await bad({ task_params: { environment: '{oops' } }, 'Extra variables must be a JSON object');
    expect((await admin.get(url)).json()).toEqual([]);

    const created = await admin.post(url, {
      ...valid,
      auth_header: 'X-Ignored',
      searchable: true,
      task_params: { message: 'from hook', environment: '{"stage":"prod"}', params: { limit: ['web'] } },
    });
    expect(created.statusCode).toBe(201);
    const item = created.json();
    expect(item).toEqual({
      id: expect.any(Number),
      project_id: p,
      name: 'push',
      template_id: tpl,
      workflow_id: null,
      tpl_name: 'deploy',
      auth_method: 'github',
      auth_header: null,
      auth_secret_id: secret,
      searchable: true,
      task_params: { message: 'from hook', environment: '{"stage":"prod"}', params: { limit: ['web'] } },
    });
    expect(created.body).not.toContain('password');
    const second = (await admin.post(url, { name: 'audit', template_id: tpl })).json();
    expect(second).toMatchObject({ auth_method: '', auth_secret_id: null, searchable: false, task_params: {} });
    expect((await admin.get(url)).json().map((i: { name: string }) => i.name)).toEqual(['audit', 'push']);
    expect((await admin.get(`${url}/${item.id}`)).json()).toEqual(item);

    expect((await admin.put(`${url}/${item.id}`, { ...valid, name: '' })).statusCode).toBe(400);
    expect((await admin.put(`${url}/${item.id}`, { ...valid, auth_method: 'none' })).statusCode).toBe(204);
    // "none" needs no secret, so the key is no longer held; what the update left out is kept. None is
    // answered as Semaphore answers it, "".
    expect((await admin.get(`${url}/${item.id}`)).json()).toMatchObject({
      name: 'push',
      auth_method: '',
      auth_secret_id: null,
      searchable: true,
      task_params: item.task_params,
    });
    expect(
      (await admin.put(`${url}/${item.id}`, { ...valid, auth_method: 'token', auth_header: 'X-Token' })).statusCode,
    ).toBe(204);
    expect((await admin.get(`${url}/${item.id}`)).json()).toMatchObject({
      auth_method: 'token',
      auth_header: 'X-Token',
      auth_secret_id: secret,
    });
    expect((await admin.get(`${url}/${item.id}/refs`)).json()).toEqual(empty);

    // The template and the key show the integrations and cannot go while they use them.
    expect((await admin.get(`/api/project/${p}/templates/${tpl}/refs`)).json().integrations).toEqual([
      { id: second.id, name: 'audit' },
      { id: item.id, name: 'push' },
    ]);
    const tplDelete = await admin.del(`/api/project/${p}/templates/${tpl}`);
    expect(tplDelete.statusCode).toBe(409);
    expect(tplDelete.json()).toMatchObject({
      error: "Can't delete the template",
      code: 'template_in_use',
      references: { integrations: [{ name: 'audit' }, { name: 'push' }] },
    });
    expect((await admin.get(`/api/project/${p}/keys/${secret}/refs`)).json()).toEqual({
      ...empty,
      integrations: [{ id: item.id, name: 'push' }],
    });
    expect((await admin.del(`/api/project/${p}/keys/${secret}`)).statusCode).toBe(409);

    expect((await admin.del(`${url}/${item.id}`)).statusCode).toBe(204);
    expect((await admin.get(`${url}/${item.id}`)).statusCode).toBe(404);
    expect((await admin.del(`/api/project/${p}/keys/${secret}`)).statusCode).toBe(204);
    expect((await admin.del(`${url}/${second.id}`)).statusCode).toBe(204);
    expect((await admin.del(`/api/project/${p}/templates/${tpl}`)).statusCode).toBe(204);

    const events = (await admin.get(`/api/project/${p}/events/last`))
      .json()
      .map((e: { description: string }) => e.description);
    expect(events).toEqual(
      expect.arrayContaining([
        'Integration push created',
        'Integration push updated',
        'Integration push deleted',
        'Integration audit deleted',
      ]),
    );
  });

  it('makes random aliases per integration and per project, and deletes them', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const tpl = await bashTemplate(admin, p);
    const a = (await admin.post(`/api/project/${p}/integrations`, { name: 'a', template_id: tpl })).json().id;
    const b = (await admin.post(`/api/project/${p}/integrations`, { name: 'b', template_id: tpl })).json().id;
    const base = `/api/project/${p}/integrations`;

    const first = await admin.post(`${base}/${a}/aliases`);
    expect(first.statusCode).toBe(201);
    const alias = first.json();
    expect(alias).toEqual({
      id: expect.any(Number),
      project_id: p,
      integration_id: a,
      alias: expect.stringMatching(INTEGRATION_ALIAS_PATTERN),
      url: `/api/integrations/${alias.alias}`,
    });
    expect(alias.alias).toHaveLength(32);
    const again = (await admin.post(`${base}/${a}/aliases`)).json();
    expect(again.alias).not.toBe(alias.alias);
    const projectLevel = await admin.post(`${base}/aliases`);
    expect(projectLevel.statusCode).toBe(201);
    expect(projectLevel.json()).toMatchObject({ project_id: p, integration_id: null });

    expect((await admin.get(`${base}/${a}/aliases`)).json().map((x: { id: number }) => x.id)).toEqual([
      alias.id,
      again.id,
    ]);
    expect((await admin.get(`${base}/${b}/aliases`)).json()).toEqual([]);
    expect((await admin.get(`${base}/aliases`)).json()).toEqual([projectLevel.json()]);

    // An alias is only deleted through its own integration (or the project level for project aliases).
    expect((await admin.del(`${base}/${b}/aliases/${alias.id}`)).statusCode).toBe(404);
    expect((await admin.del(`${base}/aliases/${alias.id}`)).statusCode).toBe(404);
    expect((await admin.del(`${base}/${a}/aliases/${projectLevel.json().id}`)).statusCode).toBe(404);
    expect((await admin.del(`${base}/${a}/aliases/${alias.id}`)).statusCode).toBe(204);
    expect((await admin.del(`${base}/aliases/${projectLevel.json().id}`)).statusCode).toBe(204);
    expect((await admin.get(`${base}/aliases`)).json()).toEqual([]);
    expect((await admin.get(`${base}/${a}/aliases`)).json().map((x: { id: number }) => x.id)).toEqual([again.id]);

    // Deleting the integration takes its aliases along.
    expect((await admin.del(`${base}/${a}`)).statusCode).toBe(204);
    expect((await admin.get(`${base}/${a}/aliases`)).statusCode).toBe(404);
    expect(
      (await t().app.inject({ method: 'POST', url: `/api/integrations/${again.alias}`, payload: {} })).statusCode,
    ).toBe(404);
  });

  it('goes with its project', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const tpl = await bashTemplate(admin, p);
    const key = await createKey(admin, p, 'login_password');
    const base = `/api/project/${p}/integrations`;
    const id = (
      await admin.post(base, {
        name: 'hook',
        template_id: tpl,
        auth_method: 'token',
        auth_header: 'X-Token',
        auth_secret_id: key,
      })
    ).json().id;
    const alias = (await admin.post(`${base}/${id}/aliases`)).json().alias;
    await admin.post(`${base}/aliases`);
    await admin.post(`${base}/${id}/matchers`, {
      name: 'm',
      match_type: 'body',
      body_data_type: 'string',
      key: '-',
      method: 'contains',
      value: 'x',
    });
    await admin.post(`${base}/${id}/values`, {
      name: 'v',
      value_source: 'header',
      key: 'X-A',
      variable_type: 'environment',
      variable: 'A',
    });
    expect((await admin.del(`/api/project/${p}`)).statusCode).toBe(204);
    for (const table of [
      'integration',
      'integration_alias',
      'integration_matcher',
      'integration_extract_value',
    ] as const) {
      expect(await ctx.db.db.selectFrom(table).select('id').where('project_id', '=', p).execute()).toEqual([]);
    }
    expect(
      (
        await ctx.app.inject({
          method: 'POST',
          url: `/api/integrations/${alias}`,
          headers: { 'x-token': 'p' },
          payload: 'x',
        })
      ).statusCode,
    ).toBe(404);
  });
});

describe.each(engines)('integration alias URLs with GANTRY_WEB_HOST ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_WEB_HOST: 'https://gantry.example.com/' });

  it('are absolute', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const id = (
      await admin.post(`/api/project/${p}/integrations`, { name: 'hook', template_id: await bashTemplate(admin, p) })
    ).json().id;
    const alias = (await admin.post(`/api/project/${p}/integrations/${id}/aliases`)).json();
    expect(alias.url).toBe(`https://gantry.example.com/api/integrations/${alias.alias}`);
  });
});
