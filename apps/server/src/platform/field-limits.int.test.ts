import { describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, uniq, useTestApp, type TestContext } from '../test/harness.js';
import { setupTemplate } from '../test/tasks.js';

/** Field limits come from the contracts' schemas: a 400 naming the field, and nothing stored. */
describe.each(engines)('field limits ($name)', (engine) => {
  const t = useTestApp(engine);
  const count = async (ctx: TestContext, table: 'project' | 'access_key' | 'user' | 'template') =>
    Number(
      (
        await ctx.db.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('project names: 1 MB, NUL or 256 characters are refused; 255 are fine', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const before = await count(t(), 'project');
    const refused: Array<[string, string]> = [
      ['x'.repeat(1_000_000), 'Project name must be at most 255 characters'],
      ['ops\u0000prod', 'Project name must not contain control characters'],
      ['ops\nprod', 'Project name must not contain control characters'],
      ['a'.repeat(256), 'Project name must be at most 255 characters'],
    ];
    for (const [name, error] of refused) {
      const r = await admin.post('/api/projects', { name });
      expect([r.statusCode, r.json()]).toEqual([400, { error }]);
    }
    expect(await count(t(), 'project')).toBe(before);
    const ok = await admin.post('/api/projects', { name: 'a'.repeat(255) });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().name).toBe('a'.repeat(255));
    // Renaming obeys the same rule.
    const renamed = await admin.put(`/api/project/${ok.json().id}`, { name: 'b'.repeat(256) });
    expect(renamed.json()).toEqual({ error: 'Project name must be at most 255 characters' });
    expect(renamed.statusCode).toBe(400);
  });

  it('key names', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const before = await count(t(), 'access_key');
    for (const [name, error] of [
      ['k'.repeat(256), 'Name must be at most 255 characters'],
      ['key\u0000', 'Name must not contain control characters'],
    ]) {
      const r = await admin.post(`/api/project/${p}/keys`, { name, type: 'none' });
      expect([r.statusCode, r.json()]).toEqual([400, { error }]);
    }
    expect(await count(t(), 'access_key')).toBe(before);
    expect((await admin.post(`/api/project/${p}/keys`, { name: 'k'.repeat(255), type: 'none' })).statusCode).toBe(201);
  });

  it('usernames', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const user = (username: string) => ({
      name: 'N',
      username,
      email: `${uniq('e')}@example.com`,
      password: 'pw-123456',
    });
    const before = await count(t(), 'user');
    for (const [username, error] of [
      ['u'.repeat(256), 'Username must be at most 255 characters'],
      ['ada\u0000', 'Username must not contain control characters'],
    ]) {
      const r = await admin.post('/api/users', user(username));
      expect([r.statusCode, r.json()]).toEqual([400, { error }]);
    }
    expect(await count(t(), 'user')).toBe(before);
    expect((await admin.post('/api/users', user(`${uniq('u')}${'u'.repeat(230)}`.slice(0, 255)))).statusCode).toBe(201);
  });

  it('template names and descriptions', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'a.sh': 'echo a\n' }), { app: 'bash', playbook: 'a.sh' });
    const base = { app: 'bash', playbook: 'a.sh', repository_id: s.repositoryId, environment_id: s.environmentId };
    const before = await count(t(), 'template');
    for (const [over, error] of [
      [{ name: 't'.repeat(256) }, 'Name must be at most 255 characters'],
      [{ name: 'tpl\u0000' }, 'Name must not contain control characters'],
      [{ name: 'tpl', description: 'd'.repeat(4097) }, 'Description must be at most 4096 characters'],
      [{ name: 'tpl', description: 'a\u0000b' }, 'Description must not contain control characters'],
    ] as const) {
      const r = await admin.post(`/api/project/${p}/templates`, { ...base, ...over });
      expect([r.statusCode, r.json()]).toEqual([400, { error }]);
    }
    expect(await count(t(), 'template')).toBe(before);
    // Descriptions are multi-line: line breaks and tabs are fine.
    const description = `${'d'.repeat(4000)}\n\tend\r\n`.padEnd(4096, 'x');
    const ok = await admin.post(`/api/project/${p}/templates`, { ...base, name: 't'.repeat(255), description });
    expect(ok.statusCode).toBe(201);
    expect((await admin.get(`/api/project/${p}/templates/${ok.json().id}`)).json().description).toBe(description);
  });
});
