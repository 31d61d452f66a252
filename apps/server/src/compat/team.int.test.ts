import type { ProjectUser } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import type { Caller, TestContext } from '../test/harness.js';
import { addMember, createProject, engines, signedInUser, uniq, useTestApp } from '../test/harness.js';

/** Reads as Semaphore's clients do: a bearer token and `accept: application/json`. */
async function semaphoreGet(ctx: TestContext, caller: Caller) {
  const token = (await caller.post('/api/user/tokens')).json<{ id: string }>().id;
  return (url: string) =>
    ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
}

describe.each(engines)('Semaphore clients: team list sorting ($name)', (engine) => {
  const t = useTestApp(engine);

  it('sorts members by name, username, email or role, either way', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    // Names, usernames, emails and roles each in a different order, so every sort is told apart.
    const people = [
      { name: 'Cara', username: `b-${uniq()}`, email: `a-${uniq()}@example.com`, role: 'manager' },
      { name: 'Abe', username: `c-${uniq()}`, email: `b-${uniq()}@example.com`, role: 'task_runner' },
      { name: 'Bea', username: `a-${uniq()}`, email: `c-${uniq()}@example.com`, role: 'guest' },
    ] as const;
    const ids: Record<string, number> = {};
    for (const x of people) {
      const row = await t().app.services.users.create({
        ...x,
        password: `pw-${x.username}`,
        admin: false,
        external: false,
        alert: false,
      });
      await addMember(t(), p, row.id, x.role);
      ids[x.name] = row.id;
    }
    const get = await semaphoreGet(t(), admin);
    // The admin who made the project is its owner: leave them out of the order checks.
    const order = async (query: string) => {
      const r = await get(`/api/project/${p}/users${query}`);
      expect(r.statusCode).toBe(200);
      const list = r.json<ProjectUser[]>();
      for (const m of list)
        expect(m).toEqual({
          id: expect.any(Number),
          name: expect.any(String),
          username: expect.any(String),
          role: expect.any(String),
          // Gantry's one addition (docs/semaphore-compatibility.md): made by hand, not by a group mapping.
          mapped: null,
        });
      return list.filter((m) => m.id !== admin.id).map((m) => m.name);
    };
    expect(await order('?sort=email&order=asc')).toEqual(['Cara', 'Abe', 'Bea']);
    expect(await order('?sort=email&order=desc')).toEqual(['Bea', 'Abe', 'Cara']);
    expect(await order('?sort=username&order=asc')).toEqual(['Bea', 'Cara', 'Abe']);
    expect(await order('?sort=name&order=desc')).toEqual(['Cara', 'Bea', 'Abe']);
    expect(await order('?sort=role&order=asc')).toEqual(['Bea', 'Cara', 'Abe']);
    expect(await order('?sort=role&order=desc')).toEqual(['Abe', 'Cara', 'Bea']);
    // Without either: by name, ascending (as before).
    expect(await order('')).toEqual(['Abe', 'Bea', 'Cara']);
    expect(await order('?sort=email')).toEqual(['Cara', 'Abe', 'Bea']);
  });

  it('refuses other sorts and orders with a message naming them', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const get = await semaphoreGet(t(), admin);
    const cases: Array<[string, string]> = [
      ['?sort=created&order=asc', 'Sort must be name, username, email or role'],
      ['?sort=admin', 'Sort must be name, username, email or role'],
      ['?sort=email&order=up', 'Order must be asc or desc'],
      ['?sort=name&order=DESC', 'Order must be asc or desc'],
    ];
    for (const [query, error] of cases) {
      const r = await get(`/api/project/${p}/users${query}`);
      expect([r.statusCode, r.json()]).toEqual([400, { error, code: 'must_be_one_of', name: expect.any(String), values: expect.any(String), field: expect.any(String) }]);
    }
  });
});
