import { describe, expect, it } from 'vitest';
import { addMember, createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';

const DAY = 24 * 60 * 60 * 1000;

describe.each(engines)('schedule next runs ($name)', (engine) => {
  const t = useTestApp(engine);

  it('lists the next due times of an expression, as the scheduler computes them, to any member', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const guest = await signedInUser(ctx);
    await addMember(ctx, p, guest.id, 'guest');

    const before = Date.now();
    const r = await guest.post(`/api/project/${p}/schedules/next_runs`, { cron_format: '0 2 * * *' });
    expect(r.statusCode).toBe(200);
    const runs = (r.json() as { runs: string[] }).runs;
    expect(runs).toHaveLength(3);
    // Three consecutive days at 02:00 UTC, the first within a day after now.
    for (const run of runs) expect(run).toMatch(/^\d{4}-\d{2}-\d{2}T02:00:00\.000Z$/);
    const times = runs.map((x) => Date.parse(x));
    expect(times[0]).toBeGreaterThan(before);
    expect(times[0]! - before).toBeLessThanOrEqual(DAY);
    expect([times[1]! - times[0]!, times[2]! - times[1]!]).toEqual([DAY, DAY]);

    const five = await admin.post(`/api/project/${p}/schedules/next_runs`, { cron_format: '*/15 * * * *', count: 5 });
    expect(five.json().runs).toHaveLength(5);
    for (const run of five.json().runs as string[]) expect(new Date(run).getUTCMinutes() % 15).toBe(0);
  });

  it('refuses a bad cron or count with 400 naming the field', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    for (const cron of ['61 * * * *', 'nope', '* * * *', '']) {
      const r = await admin.post(`/api/project/${p}/schedules/next_runs`, { cron_format: cron });
      expect([r.statusCode, r.json().field], cron).toEqual([400, 'cron_format']);
      expect(r.json().error).toMatch(/cron/i);
    }
    const missing = await admin.post(`/api/project/${p}/schedules/next_runs`, {});
    expect([missing.statusCode, missing.json().field]).toEqual([400, 'cron_format']);
    const count = await admin.post(`/api/project/${p}/schedules/next_runs`, { cron_format: '0 2 * * *', count: 1000 });
    expect([count.statusCode, count.json().field]).toEqual([400, 'count']);
    // The Semaphore route stays as it was: a good cron is a 200 with no body.
    const ok = await admin.post(`/api/project/${p}/schedules/validate`, { cron_format: '0 2 * * *' });
    expect([ok.statusCode, ok.body]).toEqual([200, '']);
  });

  it('answers 404 to a non-member, as every project route does', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const outsider = await signedInUser(ctx);
    const r = await outsider.post(`/api/project/${p}/schedules/next_runs`, { cron_format: '0 2 * * *' });
    expect(r.statusCode).toBe(404);
    expect(r.json()).not.toHaveProperty('runs');
  });
});
