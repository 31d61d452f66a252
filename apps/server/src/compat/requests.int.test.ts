import { Messages, SESSION_COOKIE } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../test/tasks.js';
import { scriptClient, scriptHeaders, sendAs } from './script-client.js';

describe.each(engines)('compat: requests as API clients send them ($name)', (engine) => {
  const t = useTestApp(engine);

  it('treats an empty JSON body as no body: token creation, DELETE, logout', async () => {
    const admin = await signedInUser(t(), { admin: true });
    // Created with a bodyless POST carrying Content-Type: application/json.
    const api = await scriptClient(t(), admin);
    expect(api.token).toMatch(/\S{20,}/);
    const ws = await t().app.inject({
      method: 'POST',
      url: '/api/user/tokens',
      headers: scriptHeaders(api.token),
      payload: ' \r\n\t ',
    });
    expect(ws.statusCode).toBe(201);

    const p = await createProject(admin);
    const key = await api.send('POST', `/api/project/${p}/keys`, { name: 'to delete', type: 'none' });
    expect(key.statusCode).toBe(201);
    const del = await api.send('DELETE', `/api/project/${p}/keys/${key.json().id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await api.send('GET', `/api/project/${p}/keys`)).json()).toEqual([]);

    const delToken = await api.send('DELETE', `/api/user/tokens/${ws.json().id}`);
    expect(delToken.statusCode).toBe(204);
    expect((await api.send('GET', '/api/user/tokens')).json().map((x: { id: string }) => x.id)).not.toContain(
      ws.json().id,
    );

    const logout = await sendAs(
      t(),
      { ...scriptHeaders(), cookie: `${SESSION_COOKIE}=${admin.cookie}` },
      'POST',
      '/api/auth/logout',
    );
    expect(logout.statusCode).toBe(204);
    expect((await admin.get('/api/user')).statusCode).toBe(401);
  });

  it('stops a running task with a bodyless POST .../stop', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const api = await scriptClient(t(), admin);
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'long.sh': 'echo started\nsleep 30 &\nwait\necho never\n' }), {
      app: 'bash',
      playbook: 'long.sh',
    });
    const id = await runTask(admin, p, { template_id: s.templateId });
    for (let i = 0; i < 300 && !(await taskLog(admin, p, id)).includes('started'); i++)
      await new Promise((r) => setTimeout(r, 100));
    const stop = await api.send('POST', `/api/project/${p}/tasks/${id}/stop`);
    expect(stop.statusCode).toBe(204);
    expect((await waitForTask(admin, p, id)).status).toBe('stopped');
    expect(await taskLog(admin, p, id)).not.toContain('never');
  });

  it('still refuses bodies that are not JSON, too large or poisoned, changing nothing', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const api = await scriptClient(t(), admin);
    const p = await createProject(admin);
    const send = (payload: string) =>
      t().app.inject({ method: 'POST', url: `/api/project/${p}/keys`, headers: scriptHeaders(api.token), payload });
    for (const payload of ['{"name": "x", ', 'not json', '""x']) {
      const res = await send(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'Request body is not valid JSON', code: 'body_not_json' });
    }
    const poisoned = await send('{"name": "p", "type": "none", "__proto__": {"admin": true}}');
    expect(poisoned.statusCode).toBe(400);
    const big = await send(JSON.stringify({ name: 'big', type: 'none', pad: 'x'.repeat(1024 * 1024) }));
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ error: 'Request body is too large', code: 'body_too_large' });
    // A create route that needs a body still says which field is missing.
    const empty = await api.send('POST', `/api/project/${p}/keys`);
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error).toMatch(/./);
    expect((await api.send('GET', `/api/project/${p}/keys`)).json()).toEqual([]);
  });

  it('accepts a trailing slash on user, project and project resource routes (GET, PUT, DELETE)', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const other = await signedInUser(t());
    const api = await scriptClient(t(), admin);
    const p = await createProject(admin, 'Slashes');

    const user = await api.send('GET', `/api/users/${other.id}/`);
    expect(user.statusCode).toBe(200);
    expect(user.json()).toMatchObject({ id: other.id, username: other.username });
    const putUser = await api.send('PUT', `/api/users/${other.id}/`, {
      name: 'Renamed',
      username: other.username,
      email: `${other.username}@example.com`,
    });
    expect(putUser.statusCode).toBe(204);
    expect((await api.send('GET', `/api/users/${other.id}`)).json().name).toBe('Renamed');

    expect((await api.send('GET', `/api/project/${p}/`)).json()).toMatchObject({ id: p, name: 'Slashes' });
    expect((await api.send('PUT', `/api/project/${p}/`, { name: 'Slashed' })).statusCode).toBe(204);
    expect((await api.send('GET', `/api/project/${p}`)).json().name).toBe('Slashed');

    const key = (await api.send('POST', `/api/project/${p}/keys/`, { name: 'k', type: 'none' })).json();
    expect((await api.send('GET', `/api/project/${p}/keys/`)).json()).toHaveLength(1);
    expect((await api.send('GET', `/api/project/${p}/keys/${key.id}/`)).json()).toMatchObject({
      id: key.id,
      name: 'k',
    });
    expect((await api.send('PUT', `/api/project/${p}/keys/${key.id}/`, { name: 'k2', type: 'none' })).statusCode).toBe(
      204,
    );
    expect((await api.send('DELETE', `/api/project/${p}/keys/${key.id}/`)).statusCode).toBe(204);
    expect((await api.send('DELETE', `/api/users/${other.id}/`)).statusCode).toBe(204);
    expect((await api.send('GET', `/api/users/${other.id}/`)).statusCode).toBe(404);
  });
});

describe.each(engines)('compat: behind a reverse proxy that rewrites Host ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_WEB_HOST: 'https://gantry.example.com/' });
  const browser = {
    host: 'internal:3000',
    origin: 'https://gantry.example.com',
    'content-type': 'application/json',
    'sec-fetch-site': 'same-origin',
  };

  it('signs in and changes data from the configured public origin, and refuses other origins', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const login = await t().app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: browser,
      payload: JSON.stringify({ auth: admin.username, password: admin.password }),
    });
    expect(login.statusCode).toBe(204);
    const cookie = login.cookies.find((c) => c.name === SESSION_COOKIE)!.value;

    const put = await t().app.inject({
      method: 'PUT',
      url: `/api/users/${admin.id}`,
      headers: browser,
      cookies: { [SESSION_COOKIE]: cookie },
      payload: JSON.stringify({
        name: 'Behind proxy',
        username: admin.username,
        email: `${admin.username}@example.com`,
      }),
    });
    expect(put.statusCode).toBe(204);

    const foreign = await t().app.inject({
      method: 'PUT',
      url: `/api/users/${admin.id}`,
      headers: { ...browser, origin: 'https://evil.example.net', 'sec-fetch-site': 'cross-site' },
      cookies: { [SESSION_COOKIE]: cookie },
      payload: JSON.stringify({ name: 'Evil', username: admin.username, email: `${admin.username}@example.com` }),
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toEqual({ error: Messages.crossSite, code: 'cross_site' });
    expect((await admin.get(`/api/users/${admin.id}`)).json().name).toBe('Behind proxy');
  });
});
