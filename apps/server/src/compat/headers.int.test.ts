import { SESSION_COOKIE } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { fullProject } from '../test/full-project.js';
import { engines, signedInUser, useTestApp } from '../test/harness.js';
import { scriptClient, scriptHeaders, sendAs } from './script-client.js';

/**
 * Headers strict clients read: a 204 carries no body (no payload, no length above 0, no JSON
 * type), and JSON answers say `application/json; charset=utf-8` (a documented difference:
 * Semaphore's server writes `application/json` alone; both parse the same).
 */
describe.each(engines)('compat: answer headers ($name)', (engine) => {
  const t = useTestApp(engine);

  it('answers 204 with no body on updates, deletes and sign-out', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p } = await fullProject(admin);
    const api = await scriptClient(t(), admin);
    const keys = (await api.send('GET', `/api/project/${p}/keys`)).json() as { id: number; name: string }[];
    const none = keys.find((k) => k.name === 'none')!;
    const answers = [
      await api.send('PUT', `/api/project/${p}`, { name: 'Renamed' }),
      await api.send('PUT', `/api/project/${p}/keys/${none.id}`, { name: 'none (renamed)', type: 'none' }),
      await api.send('POST', `/api/project/${p}/views`, { title: 'Temp', position: 9 }).then((r) => api.send('DELETE', `/api/project/${p}/views/${r.json().id}`)),
      await sendAs(t(), { ...scriptHeaders(), cookie: `${SESSION_COOKIE}=${admin.cookie}` }, 'POST', '/api/auth/logout'),
    ];
    for (const res of answers) {
      expect(res.statusCode, res.body).toBe(204);
      expect(res.body).toBe('');
      expect(res.rawPayload.length).toBe(0);
      expect(Number(res.headers['content-length'] ?? 0)).toBe(0);
      expect(res.headers['content-type']).toBeUndefined();
    }
  });

  it('labels JSON answers application/json with charset utf-8, errors included', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const api = await scriptClient(t(), admin);
    const ok = await api.send('GET', '/api/projects');
    expect(ok.headers['content-type']).toBe('application/json; charset=utf-8');
    const missing = await api.send('GET', '/api/project/999999');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toBe('application/json; charset=utf-8');
    const bad = await api.send('POST', '/api/projects', { name: '' });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(bad.json().field).toBe('name');
  });
});
