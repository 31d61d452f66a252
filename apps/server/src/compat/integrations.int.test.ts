import { describe, expect, it } from 'vitest';
import type { TestContext } from '../test/harness.js';
import { engines, useTestApp } from '../test/harness.js';
import { deliver, hmac, settle, setupWebhooks, tasksOf } from '../test/webhooks.js';

/** Calls the API as Semaphore's scripts and generated clients do: a bearer token and JSON bodies, no CSRF header. */
async function semaphoreClient(
  ctx: TestContext,
  cookieCaller: { post(url: string): Promise<{ json(): { id: string } }> },
) {
  const token = (await cookieCaller.post('/api/user/tokens')).json().id;
  const send = (method: 'GET' | 'POST' | 'PUT', url: string, body?: object) =>
    ctx.app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  return {
    get: (url: string) => send('GET', url),
    post: (url: string, body: object) => send('POST', url, body),
    put: (url: string, body: object) => send('PUT', url, body),
  };
}

describe.each(engines)('Semaphore clients: integrations ($name)', (engine) => {
  const t = useTestApp(engine);

  it('defaults the header of token and hmac integrations created without one, and it authenticates deliveries', async () => {
    const s = await setupWebhooks(t());
    const api = await semaphoreClient(t(), s.admin);
    const url = `/api/project/${s.p}/integrations`;
    // The body Semaphore's integration form sends for a token integration: no auth_header.
    const token = await api.post(url, {
      project_id: s.p,
      name: 'ci token',
      template_id: s.tpl,
      auth_method: 'token',
      auth_secret_id: await s.key('tok-123'),
      searchable: false,
    });
    expect(token.statusCode).toBe(201);
    expect(token.json()).toMatchObject({
      id: expect.any(Number),
      project_id: s.p,
      name: 'ci token',
      template_id: s.tpl,
      auth_method: 'token',
      auth_header: 'Authorization',
    });
    const mac = await api.post(url, {
      project_id: s.p,
      name: 'ci hmac',
      template_id: s.tpl,
      auth_method: 'hmac',
      auth_header: '',
      auth_secret_id: await s.key('mac-secret'),
    });
    expect(mac.statusCode).toBe(201);
    expect(mac.json()).toMatchObject({ auth_method: 'hmac', auth_header: 'X-Hub-Signature-256' });
    // A header that is given is kept; an update without one gets the default again.
    const own = await api.post(url, {
      project_id: s.p,
      name: 'own',
      template_id: s.tpl,
      auth_method: 'token',
      auth_header: 'X-Gitlab-Token',
      auth_secret_id: await s.key('own-1'),
    });
    expect(own.json().auth_header).toBe('X-Gitlab-Token');
    const ownId = own.json().id as number;
    expect(
      (
        await api.put(`${url}/${ownId}`, {
          id: ownId,
          project_id: s.p,
          name: 'own',
          template_id: s.tpl,
          auth_method: 'hmac',
          auth_secret_id: own.json().auth_secret_id,
        })
      ).statusCode,
    ).toBe(204);
    expect((await api.get(`${url}/${ownId}`)).json()).toMatchObject({
      auth_method: 'hmac',
      auth_header: 'X-Hub-Signature-256',
    });
    // Methods without a header of their choice still store none.
    const basic = await api.post(url, {
      project_id: s.p,
      name: 'basic',
      template_id: s.tpl,
      auth_method: 'basic',
      auth_secret_id: await s.key('pw', 'ci'),
    });
    expect(basic.json().auth_header).toBeNull();

    const alias = async (id: number) => (await s.admin.post(`${url}/${id}/aliases`)).json().alias as string;
    const body = '{"ref":"main"}';
    const tokenAlias = await alias(token.json().id);
    const macAlias = await alias(mac.json().id);
    expect(
      (await deliver(t(), tokenAlias, body, { 'content-type': 'application/json', authorization: 'tok-12' }))
        .statusCode,
    ).toBe(404);
    expect(
      (await deliver(t(), tokenAlias, body, { 'content-type': 'application/json', authorization: 'tok-123' }))
        .statusCode,
    ).toBe(204);
    expect(
      (
        await deliver(t(), macAlias, body, {
          'content-type': 'application/json',
          'x-hub-signature-256': `sha256=${hmac('mac-secret', body)}`,
        })
      ).statusCode,
    ).toBe(204);
    expect(await tasksOf(s.admin, s.p, token.json().id)).toHaveLength(1);
    expect(await tasksOf(s.admin, s.p, mac.json().id)).toHaveLength(1);
    await settle(s.admin, s.p);
  });

  it('takes extracted values without variable_type as environment variables', async () => {
    const s = await setupWebhooks(t(), 'echo "ref=$REF"\n');
    const api = await semaphoreClient(t(), s.admin);
    const hook = await s.integration({ name: 'open', auth_method: 'none' });
    const values = `/api/project/${s.p}/integrations/${hook.id}/values`;
    // The body Semaphore's extracted-value form sends: no variable_type.
    const created = await api.post(values, {
      name: 'ref',
      value_source: 'body',
      body_data_type: 'json',
      key: 'ref',
      variable: 'REF',
      integration_id: hook.id,
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      id: expect.any(Number),
      integration_id: hook.id,
      name: 'ref',
      value_source: 'body',
      body_data_type: 'json',
      key: 'ref',
      variable_type: 'environment',
      variable: 'REF',
    });
    const id = created.json().id as number;
    expect(
      (await api.put(`${values}/${id}`, { id, name: 'ref2', value_source: 'header', key: 'X-Ref', variable: 'REF' }))
        .statusCode,
    ).toBe(204);
    expect((await api.get(values)).json()).toEqual([
      expect.objectContaining({ id, name: 'ref2', value_source: 'header', key: 'X-Ref', variable_type: 'environment' }),
    ]);
    // A wrong type is still refused, naming the field; nothing changes.
    const bad = await api.post(values, {
      name: 'x',
      value_source: 'header',
      key: 'X-A',
      variable: 'A',
      variable_type: 'secret',
    });
    expect([bad.statusCode, bad.json()]).toEqual([400, { error: 'Variable type must be environment or task', code: 'must_be_one_of', name: 'variable_type', values: 'environment, task', field: 'variable_type' }]);
    expect((await api.get(values)).json()).toHaveLength(1);
    // The name rules for environment variables still apply to the defaulted type.
    const reserved = await api.post(values, { name: 'p', value_source: 'header', key: 'X-P', variable: 'LD_PRELOAD' });
    expect([reserved.statusCode, reserved.json()]).toEqual([400, { error: 'Variable LD_PRELOAD is reserved', code: 'variable_reserved', variable: 'LD_PRELOAD', field: 'variable' }]);

    expect(
      (await deliver(t(), hook.alias, '{}', { 'content-type': 'application/json', 'x-ref': 'v1.2' })).statusCode,
    ).toBe(204);
    const [task] = await tasksOf(s.admin, s.p, hook.id);
    expect(task).toBeDefined();
    await settle(s.admin, s.p);
    const output = (await s.admin.get(`/api/project/${s.p}/tasks/${task!.id}/output`)).json() as Array<{
      output: string;
    }>;
    expect(output.map((l) => l.output)).toContain('ref=v1.2');
  });
});
