import type { GantryEvent } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import type { Caller, TestContext } from '../test/harness.js';
import { addMember, createProject, engines, signedInUser, useTestApp } from '../test/harness.js';

/** Reads as Semaphore's clients do: a bearer token and `accept: application/json`. */
async function semaphoreGet(ctx: TestContext, caller: Caller) {
  const token = (await caller.post('/api/user/tokens')).json<{ id: string }>().id;
  return (url: string) =>
    ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
}

const eventShape = {
  id: expect.any(Number),
  project_id: expect.any(Number),
  user_id: expect.any(Number),
  username: expect.any(String),
  object_type: expect.any(String),
  object_id: expect.any(Number),
  description: expect.any(String),
  created: expect.any(String),
};

describe.each(engines)('Semaphore clients: events ($name)', (engine) => {
  const t = useTestApp(engine);

  it('serves the user and project event lists, the last 200 or all, newest first', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const owner = await signedInUser(t());
    const p = await createProject(admin, 'Busy');
    await addMember(t(), p, owner.id, 'owner');
    const get = await semaphoreGet(t(), owner);
    // Many events at once: more than the 200 that the `last` routes answer.
    for (let i = 1; i <= 205; i++) {
      await t().app.services.events.record({
        projectId: p,
        userId: owner.id,
        objectType: 'template',
        objectId: i,
        description: `Template t${i} updated`,
      });
    }
    const all = await get(`/api/project/${p}/events`);
    expect(all.statusCode).toBe(200);
    const allEvents = all.json<GantryEvent[]>();
    expect(allEvents).toHaveLength(206);
    expect(allEvents[0]).toEqual({
      ...eventShape,
      project_id: p,
      user_id: owner.id,
      username: owner.username,
      object_id: 205,
      description: 'Template t205 updated',
      object_type: 'template',
    });
    expect(allEvents.at(-1)).toMatchObject({ description: 'Project Busy created', user_id: admin.id });
    const ids = allEvents.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const last = await get(`/api/project/${p}/events/last`);
    expect(last.statusCode).toBe(200);
    expect(last.json()).toEqual(allEvents.slice(0, 200));

    const mine = await get('/api/events');
    expect(mine.statusCode).toBe(200);
    expect(mine.json()).toEqual(allEvents);
    const mineLast = await get('/api/events/last');
    expect(mineLast.statusCode).toBe(200);
    expect(mineLast.json()).toEqual(allEvents.slice(0, 200));
  });

  it("shows a user the events of their projects only, and a project's events to its members", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const alice = await signedInUser(t());
    const bob = await signedInUser(t());
    const pa = await createProject(admin, 'Alice project');
    const pb = await createProject(admin, 'Bob project');
    const shared = await createProject(admin, 'Shared project');
    await addMember(t(), pa, alice.id, 'owner');
    await addMember(t(), pb, bob.id, 'owner');
    await addMember(t(), shared, bob.id, 'owner');
    await addMember(t(), shared, alice.id, 'guest');
    const asAlice = await semaphoreGet(t(), alice);
    for (const url of ['/api/events', '/api/events/last']) {
      const r = await asAlice(url);
      expect(r.statusCode).toBe(200);
      const projects = new Set(r.json<GantryEvent[]>().map((e) => e.project_id));
      expect(projects).toEqual(new Set([pa, shared]));
    }
    for (const url of [`/api/project/${shared}/events`, `/api/project/${shared}/events/last`]) {
      const r = await asAlice(url);
      expect(r.statusCode).toBe(200);
      expect(r.json<GantryEvent[]>().map((e) => e.description)).toEqual(['Project Shared project created']);
    }
    for (const url of [`/api/project/${pb}/events`, `/api/project/${pb}/events/last`]) {
      expect((await asAlice(url)).statusCode).toBe(404);
    }
    for (const url of ['/api/events', '/api/events/last', `/api/project/${pa}/events`]) {
      expect((await t().app.inject({ method: 'GET', url, headers: { accept: 'application/json' } })).statusCode).toBe(
        401,
      );
    }
  });
});
