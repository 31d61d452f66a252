import { Messages, SESSION_COOKIE } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { createProject, engines, signedInUser, uniq, useTestApp } from '../test/harness.js';
import { scriptClient } from './script-client.js';

/**
 * JSON bodies as clients without `Content-Type: application/json` send them: `curl -d`
 * (form-urlencoded), Python's `urllib` (form-urlencoded) and `requests(data=...)` (none), a
 * published Ansible collection's login (text/plain).
 */
describe.each(engines)('compat: JSON bodies whatever their content type ($name)', (engine) => {
  const t = useTestApp(engine);

  const login = (headers: Record<string, string>, body: string) =>
    t().app.inject({ method: 'POST', url: '/api/auth/login', headers, payload: body });

  it('signs in with JSON sent with no content type, text/plain or form-urlencoded', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const body = JSON.stringify({ auth: admin.username, password: admin.password });
    const types: Record<string, string>[] = [
      {},
      { 'content-type': 'text/plain' },
      { 'content-type': 'text/plain;charset=UTF-8' },
      { 'content-type': 'application/x-www-form-urlencoded' },
      { 'content-type': 'application/octet-stream' },
    ];
    for (const headers of types) {
      const res = await login(headers, body);
      expect(res.statusCode, JSON.stringify(headers)).toBe(204);
      expect(res.cookies.find((c) => c.name === SESSION_COOKIE)?.value).toBeTruthy();
    }
    const wrong = await login({ 'content-type': 'application/x-www-form-urlencoded' }, JSON.stringify({ auth: admin.username, password: 'nope' }));
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toBe(Messages.incorrectLogin);
  });

  it('creates and changes objects with a token and no JSON content type', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const api = await scriptClient(t(), admin);
    const send = (method: 'POST' | 'PUT', url: string, body: unknown, type?: string) =>
      t().app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${api.token}`, ...(type ? { 'content-type': type } : {}) },
        payload: JSON.stringify(body),
      });
    const name = uniq('curl');
    const created = await send('POST', '/api/projects', { name }, 'application/x-www-form-urlencoded');
    expect(created.statusCode).toBe(201);
    const id = created.json().id as number;
    expect(created.json().name).toBe(name);
    const renamed = await send('PUT', `/api/project/${id}`, { name: `${name}-2`, alert: false, max_parallel_tasks: 0 });
    expect(renamed.statusCode).toBe(204);
    expect((await admin.get(`/api/project/${id}`)).json().name).toBe(`${name}-2`);
    const key = await send('POST', `/api/project/${id}/keys`, { name: 'plain', type: 'none', project_id: id }, 'text/plain');
    expect(key.statusCode).toBe(201);
  });

  it('restores a backup sent as curl -d @backup.json sends it, and keeps the restore limit', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const api = await scriptClient(t(), admin);
    const exported = await api.send('GET', `/api/project/${await createProject(admin)}/backup`);
    expect(exported.statusCode).toBe(200);
    const doc = { ...exported.json(), meta: { ...exported.json().meta, name: uniq('curl-restore') } };
    const restore = (payload: string, type?: string) =>
      t().app.inject({
        method: 'POST',
        url: '/api/projects/restore',
        headers: { authorization: `Bearer ${api.token}`, ...(type ? { 'content-type': type } : {}) },
        payload,
      });
    const restored = await restore(JSON.stringify(doc), 'application/x-www-form-urlencoded');
    expect(restored.statusCode, restored.body).toBe(201);
    expect(restored.json().projectName).toBe(doc.meta.name);
    // Above the 1 MiB API limit but within the restore's own (10 MB): parsed, then refused as a backup only.
    const big = await restore(JSON.stringify({ ...doc, pad: 'x'.repeat(2 * 1024 * 1024) }));
    expect(big.statusCode).not.toBe(413);
    const tooBig = await restore(JSON.stringify({ ...doc, pad: 'x'.repeat(11 * 1024 * 1024) }), 'text/plain');
    expect(tooBig.statusCode).toBe(413);
  });

  it('keeps the JSON checks: invalid JSON, prototype poisoning and the body limit', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const api = await scriptClient(t(), admin);
    const post = (payload: string, type?: string) =>
      t().app.inject({
        method: 'POST',
        url: '/api/projects',
        headers: { authorization: `Bearer ${api.token}`, ...(type ? { 'content-type': type } : {}) },
        payload,
      });
    const before = (await admin.get('/api/projects')).json().length as number;

    const form = await post('name=plain-form&alert=false', 'application/x-www-form-urlencoded');
    expect(form.statusCode).toBe(400);
    expect(form.json()).toEqual({ error: 'Request body is not valid JSON', code: 'body_not_json' });

    const poisoned = await post('{"name": "p", "__proto__": {"admin": true}}');
    expect(poisoned.statusCode).toBe(400);
    const constructor = await post('{"name": "p", "constructor": {"prototype": {"admin": true}}}', 'text/plain');
    expect(constructor.statusCode).toBe(400);

    const huge = await post(JSON.stringify({ name: 'big', pad: 'x'.repeat(1024 * 1024 + 10) }));
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toEqual({ error: 'Request body is too large', code: 'body_too_large' });

    expect((await admin.get('/api/projects')).json()).toHaveLength(before);
  });

  it('refuses a cross-site form post carrying the session cookie, whatever its body', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const project = await createProject(admin);
    // <form enctype="text/plain"> can produce valid JSON: `{"name":"pwned","x":"=1"}`.
    const forged = JSON.stringify({ name: 'pwned', x: '=1' });
    for (const headers of [
      { 'content-type': 'text/plain', origin: 'https://evil.example.net', 'sec-fetch-site': 'cross-site' },
      { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example.net' },
      { 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site' },
      { 'content-type': 'multipart/form-data; boundary=x', origin: 'null' },
    ]) {
      const res = await t().app.inject({
        method: 'PUT',
        url: `/api/project/${project}`,
        headers,
        cookies: { [SESSION_COOKIE]: admin.cookie },
        payload: forged,
      });
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.json()).toEqual({ error: Messages.crossSite, code: 'cross_site' });
      const created = await t().app.inject({
        method: 'POST',
        url: '/api/projects',
        headers,
        cookies: { [SESSION_COOKIE]: admin.cookie },
        payload: forged,
      });
      expect(created.statusCode).toBe(403);
    }
    expect((await admin.get(`/api/project/${project}`)).json().name).not.toBe('pwned');
    expect((await admin.get('/api/projects')).json().map((p: { name: string }) => p.name)).not.toContain('pwned');
  });
});
