import { describe, expect, it } from 'vitest';
import { addMember, createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { bashTemplate } from '../../test/webhooks.js';

describe.each(engines)('integration permissions ($name)', (engine) => {
  const t = useTestApp(engine);

  it('lets members read, only updateProject change or list aliases; other projects stay out of reach', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const owner = await signedInUser(ctx);
    const manager = await signedInUser(ctx);
    const runner = await signedInUser(ctx);
    const guest = await signedInUser(ctx);
    const outsider = await signedInUser(ctx);
    const p = await createProject(admin);
    for (const [u, role] of [
      [owner, 'owner'],
      [manager, 'manager'],
      [runner, 'task_runner'],
      [guest, 'guest'],
    ] as const)
      await addMember(ctx, p, u.id, role);
    const tpl = await bashTemplate(admin, p);
    const base = `/api/project/${p}/integrations`;
    const id = (await owner.post(base, { name: 'hook', template_id: tpl })).json().id;
    expect(id).toEqual(expect.any(Number));
    const alias = (await owner.post(`${base}/${id}/aliases`)).json();
    const matcher = (
      await owner.post(`${base}/${id}/matchers`, {
        name: 'm',
        match_type: 'header',
        key: 'X-A',
        method: 'equals',
        value: '1',
      })
    ).json();
    const value = (
      await owner.post(`${base}/${id}/values`, {
        name: 'v',
        value_source: 'header',
        key: 'X-A',
        variable_type: 'task',
        variable: 'a',
      })
    ).json();
    const body = { name: 'x', template_id: tpl };
    const mBody = { name: 'm', match_type: 'header', key: 'X-A', method: 'equals', value: '1' };
    const vBody = { name: 'v', value_source: 'header', key: 'X-A', variable_type: 'task', variable: 'a' };

    for (const reader of [manager, runner, guest]) {
      for (const path of [
        base,
        `${base}/${id}`,
        `${base}/${id}/matchers`,
        `${base}/${id}/values`,
        `${base}/${id}/matchers/${matcher.id}`,
      ]) {
        expect((await reader.get(path)).statusCode).toBe(200);
      }
      const denied = [
        // An alias is where anyone can start the integration's task: only updateProject lists them.
        await reader.get(`${base}/${id}/aliases`),
        await reader.get(`${base}/aliases`),
        await reader.post(base, body),
        await reader.put(`${base}/${id}`, body),
        await reader.del(`${base}/${id}`),
        await reader.post(`${base}/${id}/aliases`),
        await reader.post(`${base}/aliases`),
        await reader.del(`${base}/${id}/aliases/${alias.id}`),
        await reader.post(`${base}/${id}/matchers`, mBody),
        await reader.put(`${base}/${id}/matchers/${matcher.id}`, mBody),
        await reader.del(`${base}/${id}/matchers/${matcher.id}`),
        await reader.post(`${base}/${id}/values`, vBody),
        await reader.put(`${base}/${id}/values/${value.id}`, vBody),
        await reader.del(`${base}/${id}/values/${value.id}`),
      ];
      for (const r of denied)
        expect([r.statusCode, r.json()]).toEqual([403, { error: 'Forbidden', code: 'forbidden' }]);
    }
    for (const path of [base, `${base}/${id}`, `${base}/aliases`, `${base}/${id}/matchers`]) {
      expect((await outsider.get(path)).json()).toEqual({ error: 'Project not found', code: 'project_not_found' });
    }
    expect((await outsider.post(`${base}/${id}/aliases`)).statusCode).toBe(404);
    expect((await owner.get(`${base}/${id}/matchers`)).json()).toHaveLength(1);
    expect((await owner.get(`${base}/${id}/aliases`)).json()).toEqual([alias]);
    expect((await owner.get(`${base}/aliases`)).statusCode).toBe(200);
    expect((await owner.get(`${base}/${id}/values`)).json()).toHaveLength(1);

    // The owner of another project cannot reach this project's rows through their own project.
    const q = await createProject(admin);
    await addMember(ctx, q, owner.id, 'owner');
    const qBase = `/api/project/${q}/integrations`;
    for (const path of [
      `${qBase}/${id}`,
      `${qBase}/${id}/aliases`,
      `${qBase}/${id}/matchers`,
      `${qBase}/${id}/values`,
      `${qBase}/${id}/matchers/${matcher.id}`,
    ]) {
      expect((await owner.get(path)).statusCode).toBe(404);
    }
    expect((await owner.put(`${qBase}/${id}`, body)).statusCode).toBe(404);
    expect((await owner.del(`${qBase}/${id}`)).statusCode).toBe(404);
    expect((await owner.del(`${qBase}/${id}/aliases/${alias.id}`)).statusCode).toBe(404);
    expect((await owner.del(`${qBase}/aliases/${alias.id}`)).statusCode).toBe(404);
    expect((await owner.post(`${qBase}/${id}/matchers`, mBody)).statusCode).toBe(404);
    expect((await owner.del(`${qBase}/${id}/values/${value.id}`)).statusCode).toBe(404);
    expect((await owner.get(`${base}/${id}`)).statusCode).toBe(200);
  });
});
