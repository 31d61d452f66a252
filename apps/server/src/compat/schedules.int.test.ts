import { describe, expect, it } from 'vitest';
import type { Caller, TestContext } from '../test/harness.js';
import { addMember, createProject, engines, signedInUser, useTestApp } from '../test/harness.js';

/** Posts as Semaphore's console and scripts do: a bearer token, a JSON body, no CSRF header. */
async function semaphorePost(ctx: TestContext, caller: Caller) {
  const token = (await caller.post('/api/user/tokens')).json<{ id: string }>().id;
  return (url: string, body: object) =>
    ctx.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
}

describe.each(engines)('Semaphore clients: schedule cron validation ($name)', (engine) => {
  const t = useTestApp(engine);

  it('answers 200 with no body for a good cron and 400 "Cron: …" for a bad one', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const owner = await signedInUser(t());
    const p = await createProject(admin);
    await addMember(t(), p, owner.id, 'owner');
    const post = await semaphorePost(t(), owner);
    const url = `/api/project/${p}/schedules/validate`;

    for (const cron of ['* * * * *', '*/5 9-17 * * 1-5', '0 3 1 1 *']) {
      const ok = await post(url, { cron_format: cron });
      expect([ok.statusCode, ok.body]).toEqual([200, '']);
    }
    const cases: Array<[string, string, string]> = [
      ['61 * * * *', 'Cron: Invalid value for minute: 61', 'cron_invalid'],
      ['* * *', 'Cron: must have five fields: minute hour day month weekday', 'cron_five_fields'],
      ['', 'Cron: must have five fields: minute hour day month weekday', 'cron_five_fields'],
    ];
    for (const [cron, error, code] of cases) {
      const bad = await post(url, { cron_format: cron });
      expect([bad.statusCode, bad.headers['content-type'], bad.json()]).toEqual([
        400,
        expect.stringMatching(/^application\/json/),
        { error, code, field: 'cron_format' },
      ]);
    }
    const letters = await post(url, { cron_format: 'nope * * * *' });
    expect(letters.statusCode).toBe(400);
    expect(letters.json()).toEqual({ error: expect.stringMatching(/^Cron: .*nope/), code: 'cron_invalid', field: 'cron_format' });
  });

  it('lets every member validate and hides the project from others', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const guest = await signedInUser(t());
    const stranger = await signedInUser(t());
    const p = await createProject(admin);
    await addMember(t(), p, guest.id, 'guest');
    const url = `/api/project/${p}/schedules/validate`;
    const asGuest = await semaphorePost(t(), guest);
    expect((await asGuest(url, { cron_format: '0 * * * *' })).statusCode).toBe(200);
    expect((await asGuest(url, { cron_format: '0 * * *' })).statusCode).toBe(400);
    const asStranger = await semaphorePost(t(), stranger);
    expect((await asStranger(url, { cron_format: '0 * * * *' })).statusCode).toBe(404);
  });
});
