import { describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, uniq, useTestApp, type TestContext } from '../test/harness.js';
import { setupTemplate } from '../test/tasks.js';

/** Field limits come from the contracts' schemas: a 400 naming the field, and nothing stored. */
describe.each(engines)('field limits ($name)', (engine) => {
  const t = useTestApp(engine);
  const count = async (
    ctx: TestContext,
    table:
      | 'project'
      | 'access_key'
      | 'user'
      | 'template'
      | 'environment'
      | 'repository'
      | 'inventory'
      | 'schedule'
      | 'integration'
      | 'view',
  ) =>
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
      expect([r.statusCode, r.json()]).toEqual([
        400,
        expect.objectContaining({ error, code: expect.any(String), field: expect.any(String) }),
      ]);
    }
    expect(await count(t(), 'project')).toBe(before);
    const ok = await admin.post('/api/projects', { name: 'a'.repeat(255) });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().name).toBe('a'.repeat(255));
    // Renaming obeys the same rule.
    const renamed = await admin.put(`/api/project/${ok.json().id}`, { name: 'b'.repeat(256) });
    expect(renamed.json()).toEqual({
      error: 'Project name must be at most 255 characters',
      code: 'too_long',
      label_key: 'project_name',
      max: 255,
      field: 'name',
    });
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
      expect([r.statusCode, r.json()]).toEqual([
        400,
        expect.objectContaining({ error, code: expect.any(String), field: expect.any(String) }),
      ]);
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
      expect([r.statusCode, r.json()]).toEqual([
        400,
        expect.objectContaining({ error, code: expect.any(String), field: expect.any(String) }),
      ]);
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
      expect([r.statusCode, r.json()]).toEqual([
        400,
        expect.objectContaining({ error, code: expect.any(String), field: expect.any(String) }),
      ]);
    }
    expect(await count(t(), 'template')).toBe(before);
    // Descriptions are multi-line: line breaks and tabs are fine.
    const description = `${'d'.repeat(4000)}\n\tend\r\n`.padEnd(4096, 'x');
    const ok = await admin.post(`/api/project/${p}/templates`, { ...base, name: 't'.repeat(255), description });
    expect(ok.statusCode).toBe(201);
    expect((await admin.get(`/api/project/${p}/templates/${ok.json().id}`)).json().description).toBe(description);
  });

  it('key secrets: a 70 KiB private key, password or passphrase is refused naming the field, and nothing is stored', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const before = await count(t(), 'access_key');
    const big = `-----BEGIN OPENSSH PRIVATE KEY-----\n${'A'.repeat(70 * 1024)}\n-----END OPENSSH PRIVATE KEY-----\n`;
    const refused: Array<[Record<string, unknown>, string, string]> = [
      [{ type: 'ssh', ssh: { private_key: big } }, 'Private key must be at most 64 KiB', 'ssh.private_key'],
      [
        { type: 'ssh', ssh: { private_key: 'k', passphrase: 'p'.repeat(70 * 1024) } },
        'Passphrase must be at most 64 KiB',
        'ssh.passphrase',
      ],
      [
        { type: 'login_password', login_password: { login: 'l', password: 'p'.repeat(70 * 1024) } },
        'Password must be at most 64 KiB',
        'login_password.password',
      ],
      // Bytes are counted, not characters: 30 000 three-byte characters are 90 000 bytes.
      [
        { type: 'login_password', login_password: { login: 'l', password: '€'.repeat(30_000) } },
        'Password must be at most 64 KiB',
        'login_password.password',
      ],
    ];
    for (const [body, error, field] of refused) {
      const r = await admin.post(`/api/project/${p}/keys`, { name: 'big', ...body });
      expect([r.statusCode, r.json()], field).toEqual([400, { error, code: 'too_large', field, limit: '64 KiB' }]);
    }
    expect(await count(t(), 'access_key')).toBe(before);
    const ok = await admin.post(`/api/project/${p}/keys`, {
      name: 'ok',
      type: 'login_password',
      login_password: { login: 'l', password: 'p'.repeat(64 * 1024) },
    });
    expect(ok.statusCode).toBe(201);
    // Overriding a stored secret obeys the same limit.
    const over = await admin.put(`/api/project/${p}/keys/${ok.json().id}`, {
      name: 'ok',
      type: 'login_password',
      override_secret: true,
      login_password: { login: 'l', password: 'p'.repeat(64 * 1024 + 1) },
    });
    expect([over.statusCode, over.json()]).toEqual([
      400,
      {
        error: 'Password must be at most 64 KiB',
        code: 'too_large',
        field: 'login_password.password',
        limit: '64 KiB',
      },
    ]);
  });

  it('names refuse bidirectional-override and invisible characters, naming the field; nothing is stored', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'a.sh': 'echo a\n' }), { app: 'bash', playbook: 'a.sh' });
    const invisible = (thing: string, field = 'name') => ({
      error: `${thing} must not contain invisible or bidirectional control characters`,
      code: 'invisible_characters',
      field,
    });
    // "invoice\u202Efdp.sh" shows as "invoicehs.pdf"; the others show nothing at all.
    for (const name of [
      'invoice\u202Efdp.sh',
      'prod\u200Bdb',
      'a\u2066b',
      'soft\u00ADhyphen',
      'a\uFEFFb',
      'c1\u0085x',
    ]) {
      const before = await Promise.all(
        (
          [
            'project',
            'access_key',
            'repository',
            'inventory',
            'environment',
            'template',
            'schedule',
            'integration',
            'view',
          ] as const
        ).map((table) => count(t(), table)),
      );
      const cases: Array<[string, Record<string, unknown>, ReturnType<typeof invisible>]> = [
        ['/api/projects', { name }, invisible('Project name')],
        [`/api/project/${p}/keys`, { name, type: 'none' }, invisible('Name')],
        [`/api/project/${p}/repositories`, { name, git_url: '/tmp/x', ssh_key_id: s.keyId }, invisible('Name')],
        [
          `/api/project/${p}/inventory`,
          { name, type: 'static', inventory: 'localhost', ssh_key_id: s.keyId },
          invisible('Name'),
        ],
        [`/api/project/${p}/environment`, { name, json: '{}', env: '{}' }, invisible('Name')],
        [
          `/api/project/${p}/environment`,
          { name: 'g', secrets: [{ name, type: 'var', secret: 'x' }] },
          invisible('Secret name', 'secrets.0.name'),
        ],
        [
          `/api/project/${p}/templates`,
          { name, app: 'bash', playbook: 'a.sh', repository_id: s.repositoryId, environment_id: s.environmentId },
          invisible('Name'),
        ],
        [
          `/api/project/${p}/templates`,
          {
            name: 't',
            description: `about ${name}`,
            app: 'bash',
            playbook: 'a.sh',
            repository_id: s.repositoryId,
            environment_id: s.environmentId,
          },
          invisible('Description', 'description'),
        ],
        [
          `/api/project/${p}/schedules`,
          { name, template_id: s.templateId, cron_format: '0 3 * * *' },
          invisible('Name'),
        ],
        [`/api/project/${p}/integrations`, { name, template_id: s.templateId }, invisible('Name')],
        [`/api/project/${p}/views`, { title: name }, invisible('Title', 'title')],
      ];
      for (const [url, body, answer] of cases) {
        const r = await admin.post(url, body);
        expect([r.statusCode, r.json()], `${url} ${JSON.stringify(name)}`).toEqual([400, answer]);
      }
      const after = await Promise.all(
        (
          [
            'project',
            'access_key',
            'repository',
            'inventory',
            'environment',
            'template',
            'schedule',
            'integration',
            'view',
          ] as const
        ).map((table) => count(t(), table)),
      );
      expect(after).toEqual(before);
    }
    // Variable names of a variable group too.
    const group = await admin.post(`/api/project/${p}/environment`, { name: 'g', json: '{"re\u202Egion": "x"}' });
    expect([group.statusCode, group.json()]).toEqual([
      400,
      {
        error: 'Variable "re\u202Egion" must not contain invisible or bidirectional control characters',
        code: 'invisible_characters',
        variable: 're\u202Egion',
        field: 'json',
      },
    ]);
    // Renaming obeys the same rule; visible non-ASCII names are fine.
    const renamed = await admin.put(`/api/project/${p}/keys/${s.keyId}`, { name: 'k\u202E', type: 'none' });
    expect([renamed.statusCode, renamed.json()]).toEqual([400, invisible('Name')]);
    expect((await admin.post(`/api/project/${p}/keys`, { name: 'Schlüssel — prod 🚀', type: 'none' })).statusCode).toBe(
      201,
    );
  });
});
