import { describe, expect, it } from 'vitest';
import { engines, useTestApp } from '../test/harness.js';
import { deliver, settle, setupWebhooks, tasksOf } from '../test/webhooks.js';
import { apiToken, semaphoreRequest } from './tasks-client.js';

/**
 * Semaphore's integration form offers None as `auth_method: ""` (Semaphore's own value for it);
 * its form sends the whole item: a new one as `{template_id, task_params: {}, name, auth_method,
 * project_id}`, an edited one as it was read, with the changed fields. Switching to None leaves the
 * header and the secret key picked before in the body. Gantry answers none as `""` too, so that
 * form, editing such an integration, shows None and no vault field (see `semaphoreForm`).
 */

/** Semaphore console's integration form (IntegrationForm.vue): its auth method items, and which fields it shows. */
const SEMAPHORE_AUTH_ITEMS = [
  { id: '', title: 'None' },
  { id: 'github', title: 'GitHub Webhooks' },
  { id: 'token', title: 'Token' },
  { id: 'hmac', title: 'HMAC' },
];
function semaphoreForm(item: { auth_method: unknown }) {
  return {
    // v-select shows the title of the item whose id is the value, nothing for a value it has not.
    authMethod: SEMAPHORE_AUTH_ITEMS.find((m) => m.id === item.auth_method)?.title ?? null,
    // `v-if="['token', 'hmac'].includes(item.auth_method)"`
    authHeaderField: ['token', 'hmac'].includes(item.auth_method as string),
    // `v-if="item.auth_method"`: the vault (secret key) select.
    vaultField: Boolean(item.auth_method),
  };
}
const NONE_IN_SEMAPHORE_FORM = { authMethod: 'None', authHeaderField: false, vaultField: false };
describe.each(engines)('compat: integration auth "None" from Semaphore clients ($name)', (engine) => {
  const t = useTestApp(engine);

  it('creates integrations with auth_method "" or null as none, and their webhook needs no auth', async () => {
    const s = await setupWebhooks(t());
    const url = `/api/project/${s.p}/integrations`;
    const browser = { caller: s.admin };
    const secret = await s.key('left-over');
    const bodies = [
      { template_id: s.tpl, task_params: {}, name: 'empty', auth_method: '', project_id: s.p },
      { template_id: s.tpl, task_params: {}, name: 'null', auth_method: null, project_id: s.p },
      // None picked after Token: the header and the key stay in the form's item.
      {
        template_id: s.tpl,
        task_params: {},
        name: 'switched',
        auth_method: '',
        auth_header: 'X-Token',
        auth_secret_id: secret,
        project_id: s.p,
      },
      // The method never touched: the field is not there.
      { template_id: s.tpl, task_params: {}, name: 'untouched', project_id: s.p },
    ];
    for (const body of bodies) {
      const res = await semaphoreRequest(t(), browser, 'POST', url, body);
      expect([res.statusCode, res.json()]).toEqual([
        201,
        expect.objectContaining({
          name: body.name,
          template_id: s.tpl,
          auth_method: '',
          auth_header: null,
          auth_secret_id: null,
        }),
      ]);
      const id = res.json().id as number;
      const read = (await semaphoreRequest(t(), browser, 'GET', `${url}/${id}`)).json();
      expect(read).toMatchObject({ auth_method: '', auth_header: null, auth_secret_id: null });
      expect(semaphoreForm(read)).toEqual(NONE_IN_SEMAPHORE_FORM);
      expect(semaphoreForm((await semaphoreRequest(t(), browser, 'GET', url)).json().find((x: { id: number }) => x.id === id))).toEqual(NONE_IN_SEMAPHORE_FORM);
      const alias = (await s.admin.post(`${url}/${id}/aliases`)).json().alias as string;
      expect((await deliver(t(), alias, '{}', { 'content-type': 'application/json' })).statusCode).toBe(204);
      expect(await tasksOf(s.admin, s.p, id)).toHaveLength(1);
    }
    // A script with a token sends the same.
    const token = await apiToken(s.admin);
    const scripted = await semaphoreRequest(t(), { token }, 'POST', url, {
      name: 'script',
      template_id: s.tpl,
      auth_method: '',
      auth_secret_id: null,
      auth_header: '',
    });
    expect([scripted.statusCode, scripted.json().auth_method]).toEqual([201, '']);
    // Gantry's own value is still taken, and answered the same way.
    const gantry = await semaphoreRequest(t(), { token }, 'POST', url, { name: 'gantry', template_id: s.tpl, auth_method: 'none' });
    expect([gantry.statusCode, gantry.json().auth_method]).toEqual([201, '']);
    await settle(s.admin, s.p);
  });

  it('updates a token integration to auth_method "" or null: none, its secret and header dropped, the webhook open', async () => {
    const s = await setupWebhooks(t());
    const url = `/api/project/${s.p}/integrations`;
    const browser = { caller: s.admin };
    const created = await semaphoreRequest(t(), browser, 'POST', url, {
      template_id: s.tpl,
      task_params: {},
      name: 'guarded',
      auth_method: 'token',
      auth_header: 'X-Token',
      auth_secret_id: await s.key('tok-1'),
      project_id: s.p,
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as number;
    const alias = (await s.admin.post(`${url}/${id}/aliases`)).json().alias as string;
    const open = () => deliver(t(), alias, '{}', { 'content-type': 'application/json' });
    expect((await open()).statusCode).toBe(404);

    for (const none of ['', null]) {
      // The form sends back the item it read, with None picked.
      const read = (await semaphoreRequest(t(), browser, 'GET', `${url}/${id}`)).json();
      const put = await semaphoreRequest(t(), browser, 'PUT', `${url}/${id}`, {
        ...read,
        auth_method: none,
        project_id: s.p,
      });
      expect(put.statusCode).toBe(204);
      const edited = (await semaphoreRequest(t(), browser, 'GET', `${url}/${id}`)).json();
      expect(edited).toMatchObject({ name: 'guarded', auth_method: '', auth_header: null, auth_secret_id: null });
      // Opened again in Semaphore's console: None, no header, no vault field.
      expect(semaphoreForm(edited)).toEqual(NONE_IN_SEMAPHORE_FORM);
      // Saved from there as it was read (renamed): still none.
      const resaved = await semaphoreRequest(t(), browser, 'PUT', `${url}/${id}`, { ...edited, name: 'guarded', project_id: s.p });
      expect(resaved.statusCode).toBe(204);
      expect((await semaphoreRequest(t(), browser, 'GET', `${url}/${id}`)).json()).toMatchObject({ auth_method: '', auth_secret_id: null });
      expect((await open()).statusCode).toBe(204);
      // Back to a token for the next round: the webhook is guarded again.
      const guard = await semaphoreRequest(t(), browser, 'PUT', `${url}/${id}`, {
        ...read,
        auth_method: 'token',
        auth_secret_id: created.json().auth_secret_id,
        project_id: s.p,
      });
      expect(guard.statusCode).toBe(204);
      expect((await open()).statusCode).toBe(404);
    }
    expect(await tasksOf(s.admin, s.p, id)).toHaveLength(2);
    await settle(s.admin, s.p);
  });

  it('still refuses an auth method it does not know, creating nothing', async () => {
    const s = await setupWebhooks(t());
    const url = `/api/project/${s.p}/integrations`;
    const res = await semaphoreRequest(t(), { caller: s.admin }, 'POST', url, {
      template_id: s.tpl,
      task_params: {},
      name: 'odd',
      auth_method: 'gitlab',
      project_id: s.p,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'Auth method must be one of none, github, bitbucket, token, hmac, basic', code: 'must_be_one_of', name: 'auth_method', values: 'none, github, bitbucket, token, hmac, basic',
    });
    expect((await s.admin.get(url)).json()).toEqual([]);
  });
});
