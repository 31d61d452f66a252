import { describe, expect, it } from 'vitest';
import { createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { bashTemplate } from '../../test/webhooks.js';

describe.each(engines)('integration matchers and extracted values ($name)', (engine) => {
  const t = useTestApp(engine);

  it('keeps matchers and extracted values, with their validation messages', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const tpl = await bashTemplate(admin, p);
    const id = (await admin.post(`/api/project/${p}/integrations`, { name: 'gh', template_id: tpl })).json().id;
    const otherId = (await admin.post(`/api/project/${p}/integrations`, { name: 'other', template_id: tpl })).json().id;
    const m = `/api/project/${p}/integrations/${id}/matchers`;
    const matcher = {
      name: 'only main',
      match_type: 'body',
      body_data_type: 'json',
      key: 'ref',
      method: 'equals',
      value: 'refs/heads/main',
      integration_id: id,
    };

    const badMatcher = async (body: object, message: string) => {
      const r = await admin.post(m, { ...matcher, ...body });
      expect(r.statusCode).toBe(400);
      expect(r.json()).toMatchObject({ error: message, code: expect.any(String), field: expect.any(String) });
    };
    await badMatcher({ name: '' }, 'Name is required');
    await badMatcher({ match_type: undefined }, 'Match source is required');
    await badMatcher({ body_data_type: null }, 'Body data format is required');
    await badMatcher({ key: '' }, 'Key is required');
    await badMatcher({ method: 'like' }, 'Comparison method is required');
    await badMatcher({ value: '' }, 'Value is required');
    await badMatcher({ integration_id: otherId }, 'Integration id does not match the path');
    expect((await admin.get(m)).json()).toEqual([]);

    const created = await admin.post(m, matcher);
    expect(created.statusCode).toBe(201);
    const row = created.json();
    expect(row).toEqual({
      id: expect.any(Number),
      integration_id: id,
      name: 'only main',
      match_type: 'body',
      body_data_type: 'json',
      key: 'ref',
      method: 'equals',
      value: 'refs/heads/main',
    });
    const header = (
      await admin.post(m, {
        name: 'push',
        match_type: 'header',
        body_data_type: 'json',
        key: 'X-GitHub-Event',
        method: 'equals',
        value: 'push',
      })
    ).json();
    expect(header.body_data_type).toBeNull();
    expect((await admin.get(m)).json()).toEqual([row, header]);
    expect((await admin.put(`${m}/${row.id}`, { ...matcher, integration_id: otherId })).statusCode).toBe(400);
    expect((await admin.put(`${m}/${row.id}`, { ...matcher, method: 'contains', value: 'main' })).statusCode).toBe(204);
    expect((await admin.get(`${m}/${row.id}`)).json()).toMatchObject({ method: 'contains', value: 'main' });
    // Another integration's path does not reach the matcher.
    expect((await admin.get(`/api/project/${p}/integrations/${otherId}/matchers/${row.id}`)).statusCode).toBe(404);
    expect(
      (
        await admin.put(`/api/project/${p}/integrations/${otherId}/matchers/${row.id}`, {
          ...matcher,
          integration_id: undefined,
        })
      ).statusCode,
    ).toBe(404);
    expect((await admin.del(`/api/project/${p}/integrations/${otherId}/matchers/${row.id}`)).statusCode).toBe(404);
    expect((await admin.del(`${m}/${header.id}`)).statusCode).toBe(204);
    expect((await admin.get(m)).json().map((x: { id: number }) => x.id)).toEqual([row.id]);

    const v = `/api/project/${p}/integrations/${id}/values`;
    const value = {
      name: 'commit',
      value_source: 'body',
      body_data_type: 'json',
      key: 'head_commit.id',
      variable_type: 'environment',
      variable: 'COMMIT_SHA',
    };
    const badValue = async (body: object, message: string) => {
      const r = await admin.post(v, { ...value, ...body });
      expect(r.statusCode).toBe(400);
      expect(r.json()).toMatchObject({ error: message, code: expect.any(String), field: expect.any(String) });
    };
    await badValue({ name: '' }, 'Name is required');
    await badValue({ value_source: 'query' }, 'Value source is required');
    await badValue({ body_data_type: undefined }, 'Body data type is required');
    await badValue({ key: '' }, 'Key is required');
    await badValue({ variable_type: 'secret' }, 'Variable type must be environment or task');
    await badValue({ variable: '' }, 'Variable is required');
    await badValue({ variable: 'has space' }, 'Variable must be letters, digits and underscores');
    await badValue({ variable: 'PATH' }, 'Variable PATH is reserved');
    await badValue({ variable: 'GANTRY_TASK_ID', variable_type: 'task' }, 'Variable GANTRY_TASK_ID is reserved');
    expect((await admin.get(v)).json()).toEqual([]);
    const val = await admin.post(v, value);
    expect(val.statusCode).toBe(201);
    expect(val.json()).toEqual({ id: expect.any(Number), integration_id: id, ...value });
    expect((await admin.put(`${v}/${val.json().id}`, { ...value, variable: 'LD_PRELOAD' })).statusCode).toBe(400);
    expect(
      (
        await admin.put(`${v}/${val.json().id}`, {
          ...value,
          value_source: 'header',
          key: 'X-Request-Id',
          integration_id: id,
        })
      ).statusCode,
    ).toBe(204);
    expect((await admin.get(`${v}/${val.json().id}`)).json()).toMatchObject({
      value_source: 'header',
      body_data_type: null,
      key: 'X-Request-Id',
      variable: 'COMMIT_SHA',
    });
    expect((await admin.del(`${v}/${val.json().id}`)).statusCode).toBe(204);
    expect((await admin.get(v)).json()).toEqual([]);

    const events = (await admin.get(`/api/project/${p}/events/last`))
      .json()
      .map((e: { description: string }) => e.description);
    expect(events).toEqual(
      expect.arrayContaining([
        'Matcher only main of integration gh created',
        'Matcher only main of integration gh updated',
        'Matcher push of integration gh deleted',
        'Extracted value commit of integration gh created',
        'Extracted value commit of integration gh deleted',
      ]),
    );
  });
});
