import { describe, expect, it } from 'vitest';
import {
  addMember,
  createProject,
  engines,
  signedInUser,
  uniq,
  useTestApp,
  type Caller,
} from '../../test/harness.js';
import { type FakeOidcProvider, oidcSignIn, useOidcProvider } from '../../test/oidc-provider.js';

/** One provider reads a flat `groups` claim, the other Keycloak's nested `realm_access.roles`. */
function providersEnv(idp: FakeOidcProvider): string {
  const entry = { provider_url: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret };
  return JSON.stringify({
    corp: { ...entry, display_name: 'Corp', groups_claim: 'groups' },
    kc: { ...entry, display_name: 'Keycloak', groups_claim: 'realm_access.roles' },
    plain: { ...entry, display_name: 'Plain' },
  });
}


interface Member {
  id: number;
  role: string;
  mapped?: { source: string; group: string } | null;
}

describe.each(engines)('identity mappings ($name)', (engine) => {
  const provider = useOidcProvider();
  const t = useTestApp(engine, {
    get GANTRY_OIDC_PROVIDERS() {
      return providersEnv(provider());
    },
  });

  const members = async (admin: Caller, project: number) =>
    (await admin.get(`/api/project/${project}/users`)).json<Member[]>();
  const memberOf = async (admin: Caller, project: number, userId: number) =>
    (await members(admin, project)).find((m) => m.id === userId);
  /** Rules are kept between tests of one describe: each test uses groups of its own. */
  const rule = async (admin: Caller, body: Record<string, unknown>) => {
    const res = await admin.post('/api/identity/mappings', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: number }>().id;
  };

  it('lets admins create, list, change and delete rules, and nobody else', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const user = await signedInUser(ctx);
    const p = await createProject(admin);

    const created = await admin.post('/api/identity/mappings', {
      source: 'ldap',
      group: ' cn=ops,ou=groups,dc=example ',
      project_id: p,
      role: 'manager',
    });
    expect(created.statusCode).toBe(201);
    const body = created.json<{ id: number }>();
    expect(body).toMatchObject({
      source: 'ldap',
      group: 'cn=ops,ou=groups,dc=example',
      admin: false,
      project_id: p,
      role: 'manager',
    });
    expect((await admin.get('/api/identity/mappings')).json()).toContainEqual(expect.objectContaining({ id: body.id }));

    const changed = await admin.put(`/api/identity/mappings/${body.id}`, {
      source: 'corp',
      group: 'admins',
      admin: true,
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({
      id: body.id,
      source: 'corp',
      group: 'admins',
      admin: true,
      project_id: null,
      role: null,
    });

    expect((await admin.get('/api/identity/sources')).json()).toEqual([
      { id: 'ldap', name: 'LDAP' },
      { id: 'corp', name: 'Corp' },
      { id: 'kc', name: 'Keycloak' },
    ]);

    for (const res of [
      await user.get('/api/identity/mappings'),
      await user.get('/api/identity/sources'),
      await user.post('/api/identity/mappings', { source: 'ldap', group: 'g', admin: true }),
      await user.post('/api/identity/mappings', { nonsense: true }),
      await user.put(`/api/identity/mappings/${body.id}`, { source: 'ldap', group: 'g', admin: true }),
      await user.del(`/api/identity/mappings/${body.id}`),
    ]) {
      expect(res.statusCode).toBe(403);
    }
    const anonymous = await ctx.app.inject({ method: 'GET', url: '/api/identity/mappings' });
    expect(anonymous.statusCode).toBe(401);

    expect((await admin.del(`/api/identity/mappings/${body.id}`)).statusCode).toBe(204);
    expect((await admin.del(`/api/identity/mappings/${body.id}`)).json()).toMatchObject({
      code: 'identity_mapping_not_found',
    });
    expect(
      (await admin.put(`/api/identity/mappings/${body.id}`, { source: 'ldap', group: 'g', admin: true })).statusCode,
    ).toBe(404);
  });

  it.each([
    [{ group: 'g', admin: true }, 'field_required', 'source'],
    [{ source: 'ldap', group: '  ', admin: true }, 'field_required', 'group'],
    [{ source: 'nowhere', group: 'g', admin: true }, 'identity_source_unknown', 'source'],
    // A provider without a groups claim sends no groups: no rule can name it.
    [{ source: 'plain', group: 'g', admin: true }, 'identity_source_unknown', 'source'],
    [{ source: 'ldap', group: 'g' }, 'identity_mapping_empty', 'admin'],
    [{ source: 'ldap', group: 'g', project_id: 1 }, 'field_required', 'role'],
    [{ source: 'ldap', group: 'g', role: 'guest' }, 'field_required', 'project_id'],
    [{ source: 'ldap', group: 'g', project_id: 1, role: 'king' }, 'field_required', 'role'],
    [{ source: 'ldap', group: 'g', project_id: 999999, role: 'guest' }, 'project_not_found', 'project_id'],
    [{ source: 'ldap', group: 'g', admin: 'yes' }, 'must_be_true_or_false', 'admin'],
  ])('refuses %o with %s on %s, and stores nothing', async (body, code, field) => {
    const admin = await signedInUser(t(), { admin: true });
    const before = (await admin.get('/api/identity/mappings')).json<unknown[]>().length;
    const res = await admin.post('/api/identity/mappings', body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: expect.any(String), code, field });
    expect((await admin.get('/api/identity/mappings')).json<unknown[]>()).toHaveLength(before);
  });

  it('gives and takes memberships and the admin flag at OIDC sign-in, leaving manual ones alone', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const [p1, p2, p3, manual] = [
      await createProject(admin),
      await createProject(admin),
      await createProject(admin),
      await createProject(admin),
    ];
    const g = uniq('g');
    await rule(admin, { source: 'corp', group: `${g}-dev`, project_id: p1, role: 'task_runner' });
    await rule(admin, { source: 'corp', group: `${g}-lead`, project_id: p1, role: 'manager' });
    await rule(admin, { source: 'corp', group: `${g}-dev`, project_id: p2, role: 'guest' });
    await rule(admin, { source: 'corp', group: `${g}-admins`, admin: true });
    // Another source's rule for the same group name does not apply to this provider.
    await rule(admin, { source: 'ldap', group: `${g}-dev`, project_id: p3, role: 'owner' });

    const name = uniq('ext');
    provider().user = {
      sub: `sub-${name}`,
      preferred_username: name,
      email: `${name}@provider().example`,
      name,
      groups: [`${g}-DEV`, `${g}-lead`, 'unrelated'],
    };
    const first = await oidcSignIn(ctx, 'corp', name);
    await admin.post(`/api/project/${manual}/users`, { user_id: first.id, role: 'guest' });
    // The strongest role of two rules for one project wins; group names compare without case.
    expect(await memberOf(admin, p1, first.id)).toMatchObject({
      role: 'manager',
      mapped: { source: 'corp', group: `${g}-lead` },
    });
    expect(await memberOf(admin, p2, first.id)).toMatchObject({
      role: 'guest',
      mapped: { source: 'corp', group: `${g}-dev` },
    });
    expect(await memberOf(admin, p3, first.id)).toBeUndefined();
    expect(await memberOf(admin, manual, first.id)).toMatchObject({ role: 'guest', mapped: null });
    expect((await first.get('/api/user')).json()).toMatchObject({ admin: false });
    expect((await first.get(`/api/project/${p1}/role`)).json()).toMatchObject({ role: 'manager' });

    // Next sign-in: out of "lead"; the session already open sees the weaker role at once.
    provider().user = { ...provider().user, groups: [`${g}-dev`] };
    await oidcSignIn(ctx, 'corp', name);
    expect((await first.get(`/api/project/${p1}/role`)).json()).toMatchObject({ role: 'task_runner' });
    expect(await memberOf(admin, p2, first.id)).toMatchObject({ role: 'guest' });

    // Then only in "admins" (a single string claim): the mapped memberships go, the admin flag comes.
    provider().user = { ...provider().user, groups: `${g}-admins` };
    const second = await oidcSignIn(ctx, 'corp', name);
    expect(await memberOf(admin, p1, first.id)).toBeUndefined();
    expect(await memberOf(admin, p2, first.id)).toBeUndefined();
    expect(await memberOf(admin, manual, first.id)).toMatchObject({ role: 'guest', mapped: null });
    expect((await first.get('/api/user')).json()).toMatchObject({ admin: true });
    const activity = (await admin.get(`/api/project/${p1}/events/last`))
      .json<{ description: string }[]>()
      .map((e) => e.description);
    expect(activity).toContain(`User ${name} removed from the project (no longer in a group mapped from corp)`);
    expect((await second.get('/api/users')).statusCode).toBe(200);

    // Out of every group: the mapped admin flag goes, and with it every open session.
    provider().user = { ...provider().user, groups: [] };
    const third = await oidcSignIn(ctx, 'corp', name);
    expect((await third.get('/api/user')).json()).toMatchObject({ admin: false });
    expect((await second.get('/api/user')).statusCode).toBe(401);
    expect((await third.get('/api/identity/mappings')).statusCode).toBe(403);
    expect(await memberOf(admin, manual, first.id)).toMatchObject({ role: 'guest', mapped: null });
  });

  it('reads a nested claim path (Keycloak realm_access.roles) and keeps an admin made by hand', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const g = uniq('role');
    await rule(admin, { source: 'kc', group: g, project_id: p, role: 'owner' });
    await rule(admin, { source: 'kc', group: `${g}-admin`, admin: true });
    const name = uniq('kc');
    provider().user = {
      sub: `sub-${name}`,
      preferred_username: name,
      email: `${name}@provider().example`,
      name,
      realm_access: { roles: [g] },
    };
    const user = await oidcSignIn(ctx, 'kc', name);
    expect(await memberOf(admin, p, user.id)).toMatchObject({ role: 'owner', mapped: { source: 'kc', group: g } });

    // An admin made by hand stays one when no rule gives it; a role set by hand becomes manual.
    const row = (await admin.get(`/api/users/${user.id}`)).json<Record<string, unknown>>();
    expect((await admin.put(`/api/users/${user.id}`, { ...row, admin: true })).statusCode).toBe(204);
    await admin.post(`/api/project/${p}/users`, { user_id: admin.id, role: 'owner' }).catch(() => undefined);
    expect((await admin.put(`/api/project/${p}/users/${user.id}`, { role: 'manager' })).statusCode).toBe(204);
    provider().user = { ...provider().user, realm_access: { roles: [] } };
    const again = await oidcSignIn(ctx, 'kc', name);
    expect((await again.get('/api/user')).json()).toMatchObject({ admin: true });
    expect(await memberOf(admin, p, user.id)).toMatchObject({ role: 'manager', mapped: null });
  });

  it('changes nothing for a source without rules, or a provider without a groups claim', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const name = uniq('plain');
    provider().user = {
      sub: `sub-${name}`,
      preferred_username: name,
      email: `${name}@provider().example`,
      name,
      groups: ['anything'],
    };
    const user = await oidcSignIn(ctx, 'plain', name);
    await addMember(ctx, p, user.id, 'task_runner');
    await ctx.app.services.identityMappings.applyAtSignIn(user.id, 'nobody-has-rules', []);
    await oidcSignIn(ctx, 'plain', name);
    expect(await memberOf(admin, p, user.id)).toMatchObject({ role: 'task_runner', mapped: null });
  });

  it('applies LDAP rules when called by the LDAP sign-in, and never demotes a last owner', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const user = await signedInUser(ctx);
    const [p1, p2] = [await createProject(admin), await createProject(admin)];
    const g = uniq('cn=');
    await rule(admin, { source: 'ldap', group: `${g},ou=groups`, project_id: p1, role: 'guest' });
    await rule(admin, { source: 'ldap', group: `${g}-ops,ou=groups`, project_id: p1, role: 'task_runner' });
    await rule(admin, { source: 'ldap', group: `${g}-ops,ou=groups`, admin: true });
    const ruleOwner = await rule(admin, { source: 'ldap', group: `${g}-own,ou=groups`, project_id: p2, role: 'owner' });
    const apply = (groups: string[]) => ctx.app.services.identityMappings.applyAtSignIn(user.id, 'ldap', groups);

    await apply([`${g},ou=groups`, `${g}-own,ou=groups`]);
    expect(await memberOf(admin, p1, user.id)).toMatchObject({ role: 'guest', mapped: { source: 'ldap' } });
    // The open session sees the new role at once.
    expect((await user.get(`/api/project/${p1}/role`)).json()).toMatchObject({ role: 'guest' });
    await apply([`${g}-ops,ou=groups`]);
    expect((await user.get(`/api/project/${p1}/role`)).json()).toMatchObject({ role: 'task_runner' });
    expect((await user.get('/api/user')).json()).toMatchObject({ admin: true });
    expect(await memberOf(admin, p2, user.id)).toBeUndefined();

    // The admin who made p2 leaves it: the mapped owner becomes its last owner and stays so.
    await apply([`${g}-own,ou=groups`]);
    expect((await admin.del(`/api/project/${p2}/me`)).statusCode).toBe(204);
    expect((await user.get('/api/user')).statusCode).toBe(401);
    expect((await admin.del(`/api/identity/mappings/${ruleOwner}`)).statusCode).toBe(204);
    await apply([]);
    expect(await memberOf(admin, p2, user.id)).toMatchObject({ role: 'owner' });
    expect(await memberOf(admin, p1, user.id)).toBeUndefined();
  });
});
