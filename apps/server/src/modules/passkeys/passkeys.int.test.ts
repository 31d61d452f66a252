import { CSRF_HEADER, SESSION_COOKIE, type AuditEntry } from '@gantry/contracts';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../platform/crypto.js';
import { callerFor, engines, signedInUser, useTestApp, type Caller, type TestContext } from '../../test/harness.js';
import { PASSKEY_SIGN_IN_COOKIE } from './passkeys.routes.js';
import { TestAuthenticator } from './passkeys.test-authenticator.js';

const WEB_HOST = 'https://gantry.test';

type Options = { challenge: string; rp: { id?: string }; rpId?: string; allowCredentials?: { id: string }[] };

/** Registers a new software passkey for the caller and answers it with the stored passkey's id. */
async function addPasskey(
  u: Caller,
  name = 'Laptop',
  origin = WEB_HOST,
): Promise<{ key: TestAuthenticator; id: number }> {
  const options = await u.post('/api/user/passkeys/options', { password: u.password });
  expect(options.statusCode).toBe(200);
  const key = new TestAuthenticator(origin);
  const res = await u.post('/api/user/passkeys', { name, response: key.register(options.json<Options>()) });
  expect(res.statusCode).toBe(201);
  return { key, id: res.json<{ id: number }>().id };
}

/** Signs in with the password only: the session waits for the second step when the user has a passkey. */
async function passwordOnly(ctx: TestContext, u: Caller): Promise<Caller> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { auth: u.username, password: u.password },
  });
  expect(res.statusCode).toBe(204);
  return callerFor(ctx, { ...u, cookie: res.cookies.find((c) => c.name === SESSION_COOKIE)!.value });
}

function remove(ctx: TestContext, u: Caller, id: number, body?: object) {
  return ctx.app.inject({
    method: 'DELETE',
    url: `/api/user/passkeys/${id}`,
    cookies: { [SESSION_COOKIE]: u.cookie },
    headers: { [CSRF_HEADER]: '1' },
    ...(body ? { payload: body } : {}),
  });
}

/** Turns on the caller's own TOTP method (password, then a code of its secret). */
async function enableTotp(u: Caller): Promise<void> {
  const started = await u.post(`/api/users/${u.id}/2fas/totp`, { password: u.password });
  expect(started.statusCode).toBe(201);
  const { id, secret } = started.json<{ id: number; secret: string }>();
  const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
  expect((await u.post(`/api/users/${u.id}/2fas/totp/${id}/confirm`, { code })).statusCode).toBe(204);
}

/** Asks for a passwordless challenge: the options and the browser cookie they are bound to. */
async function signInOptions(ctx: TestContext) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/auth/passkey/login/options',
    headers: { [CSRF_HEADER]: '1' },
  });
  expect(res.statusCode).toBe(200);
  const cookie = res.cookies.find((c) => c.name === PASSKEY_SIGN_IN_COOKIE);
  expect(cookie?.httpOnly).toBe(true);
  return { options: res.json<Options>(), browser: cookie!.value };
}

function signIn(ctx: TestContext, response: unknown, browser: string | undefined) {
  return ctx.app.inject({
    method: 'POST',
    url: '/api/auth/passkey/login',
    headers: { [CSRF_HEADER]: '1' },
    cookies: browser ? { [PASSKEY_SIGN_IN_COOKIE]: browser } : {},
    payload: { response },
  });
}

describe.each(engines)('passkeys ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_WEB_HOST: WEB_HOST, GANTRY_TOTP_ENABLED: 'true' });

  it('registers several named passkeys, lists them without their keys, renames one', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const options = (await u.post('/api/user/passkeys/options', { password: u.password })).json<
      Options & { authenticatorSelection: object }
    >();
    expect(options.rp.id).toBe('gantry.test');
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
    const first = await addPasskey(u, 'Laptop');
    await addPasskey(u, 'Phone');
    const list = await u.get('/api/user/passkeys');
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([
      { id: first.id, name: 'Laptop', created: expect.any(String), last_used: null, transports: ['internal'] },
      { id: expect.any(Number), name: 'Phone', created: expect.any(String), last_used: null, transports: ['internal'] },
    ]);
    expect(list.body).not.toContain('public_key');
    expect((await u.put(`/api/user/passkeys/${first.id}`, { name: 'Work laptop' })).statusCode).toBe(204);
    expect((await u.get('/api/user/passkeys')).json()[0].name).toBe('Work laptop');
    expect((await u.put(`/api/user/passkeys/${first.id}`, { name: ' ' })).json()).toMatchObject({
      code: 'field_required',
      field: 'name',
    });

    // Another user sees none of them and cannot rename or remove them.
    const other = await signedInUser(ctx);
    expect((await other.get('/api/user/passkeys')).json()).toEqual([]);
    expect((await other.put(`/api/user/passkeys/${first.id}`, { name: 'Mine' })).json()).toMatchObject({
      code: 'passkey_not_found',
    });
    expect((await remove(ctx, other, first.id, { password: other.password })).statusCode).toBe(404);
  });

  it('asks for a proof before adding a passkey: an open session alone does not add a way in', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const none = await u.post('/api/user/passkeys/options');
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ code: 'passkey_proof_required' });
    const wrong = await u.post('/api/user/passkeys/options', { password: 'nope' });
    expect(wrong.json()).toMatchObject({ code: 'current_password_incorrect', field: 'password' });
    expect(await ctx.db.db.selectFrom('passkey_challenge').selectAll().where('user_id', '=', u.id).execute()).toEqual(
      [],
    );
    // An existing passkey's answer is a proof too.
    const first = await addPasskey(u);
    const proofOptions = (await u.post('/api/user/passkeys/proof/options')).json<Options>();
    first.key.counter = 1;
    const options = await u.post('/api/user/passkeys/options', { assertion: first.key.assert(proofOptions) });
    expect(options.statusCode).toBe(200);
    const second = new TestAuthenticator(WEB_HOST);
    expect(
      (await u.post('/api/user/passkeys', { name: 'Second', response: second.register(options.json<Options>()) }))
        .statusCode,
    ).toBe(201);
  });

  it('refuses a registration from another origin, with a spent or foreign challenge', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const evil = new TestAuthenticator('https://evil.test');
    const options = (await u.post('/api/user/passkeys/options', { password: u.password })).json<Options>();
    const wrongOrigin = await u.post('/api/user/passkeys', { name: 'x', response: evil.register(options) });
    expect(wrongOrigin.statusCode).toBe(400);
    expect(wrongOrigin.json()).toMatchObject({ code: 'passkey_rejected', field: 'response' });

    // The challenge was spent by that attempt: a right answer to it is refused too.
    const good = new TestAuthenticator(WEB_HOST);
    const replay = await u.post('/api/user/passkeys', { name: 'x', response: good.register(options) });
    expect(replay.json()).toMatchObject({ code: 'passkey_challenge_invalid' });

    // A challenge handed to another user does not register a passkey for this one.
    const other = await signedInUser(ctx);
    const theirs = (await other.post('/api/user/passkeys/options', { password: other.password })).json<Options>();
    expect((await u.post('/api/user/passkeys', { name: 'x', response: good.register(theirs) })).json()).toMatchObject({
      code: 'passkey_challenge_invalid',
    });
    expect((await u.get('/api/user/passkeys')).json()).toEqual([]);
  });

  it('asks for the second step after the password and accepts a passkey for it', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const { key } = await addPasskey(u);
    const pending = await passwordOnly(ctx, u);
    expect((await pending.get('/api/user')).json()).toMatchObject({ code: 'totp_required' });

    const options = await pending.post('/api/auth/passkey/options');
    expect(options.statusCode).toBe(200);
    expect(options.json<Options>().allowCredentials).toEqual([expect.objectContaining({ id: key.id })]);
    key.counter = 1;
    const answer = key.assert(options.json<Options>());
    expect((await pending.post('/api/auth/passkey/verify', { response: answer })).statusCode).toBe(204);
    expect((await pending.get('/api/user')).json()).toMatchObject({ id: u.id });
    expect((await u.get('/api/user/passkeys')).json()[0].last_used).toEqual(expect.any(String));

    // The same answer again, on another session waiting for its second step: refused.
    const next = await passwordOnly(ctx, u);
    const replay = await next.post('/api/auth/passkey/verify', { response: answer });
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toMatchObject({ code: 'passkey_rejected' });
    expect((await next.get('/api/user')).json()).toMatchObject({ code: 'totp_required' });
    // A challenge handed to one session is not answered from another.
    const stolen = (await pending.post('/api/auth/passkey/options')).statusCode;
    expect(stolen).toBe(401);
    const mine = (await next.post('/api/auth/passkey/options')).json<Options>();
    const third = await passwordOnly(ctx, u);
    key.counter = 2;
    expect((await third.post('/api/auth/passkey/verify', { response: key.assert(mine) })).statusCode).toBe(401);
    expect((await third.get('/api/user')).json()).toMatchObject({ code: 'totp_required' });
  });

  it('refuses a wrong origin, a counter that went back and a user not verified', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const { key } = await addPasskey(u);
    const pending = await passwordOnly(ctx, u);
    const attempt = async (change: () => void) => {
      const options = (await pending.post('/api/auth/passkey/options')).json<Options>();
      change();
      return pending.post('/api/auth/passkey/verify', { response: key.assert(options) });
    };
    key.counter = 5;
    expect((await attempt(() => undefined)).statusCode).toBe(204);

    const again = await passwordOnly(ctx, u);
    const refused = async (change: () => void) => {
      const options = (await again.post('/api/auth/passkey/options')).json<Options>();
      change();
      const res = await again.post('/api/auth/passkey/verify', { response: key.assert(options) });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ code: 'passkey_rejected' });
    };
    // A clone of the authenticator shows a counter that did not grow.
    await refused(() => (key.counter = 5));
    await refused(() => (key.counter = 3));
    await refused(() => {
      key.counter = 6;
      key.origin = 'https://evil.test';
    });
    key.origin = WEB_HOST;
    await refused(() => {
      key.counter = 7;
      key.flags = 0x01;
    });
    key.flags = 0x05;
    expect((await again.get('/api/user')).json()).toMatchObject({ code: 'totp_required' });
    key.counter = 8;
    const options = (await again.post('/api/auth/passkey/options')).json<Options>();
    expect((await again.post('/api/auth/passkey/verify', { response: key.assert(options) })).statusCode).toBe(204);
  });

  it('signs in without a password, only from the browser the challenge went to, once', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const { key } = await addPasskey(u);
    const { options, browser } = await signInOptions(ctx);
    expect(options.rpId).toBe('gantry.test');
    expect(options.allowCredentials ?? []).toEqual([]);
    key.counter = 1;
    const answer = key.assert(options, Buffer.from(`gantry-user-${u.id}`).toString('base64url'));
    const res = await signIn(ctx, answer, browser);
    expect(res.statusCode).toBe(204);
    const session = res.cookies.find((c) => c.name === SESSION_COOKIE)!.value;
    // A fully signed-in session: no second step asked.
    const me = callerFor(ctx, { ...u, cookie: session });
    expect((await me.get('/api/user')).json()).toMatchObject({ id: u.id });

    const replay = await signIn(ctx, answer, browser);
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toMatchObject({ code: 'passkey_challenge_invalid' });
    expect(replay.cookies.find((c) => c.name === SESSION_COOKIE)).toBeUndefined();

    // Without the browser's cookie, or with another browser's, refused.
    const fresh = await signInOptions(ctx);
    key.counter = 2;
    expect((await signIn(ctx, key.assert(fresh.options), undefined)).statusCode).toBe(401);
    const other = await signInOptions(ctx);
    const mixed = await signInOptions(ctx);
    key.counter = 3;
    expect((await signIn(ctx, key.assert(other.options), mixed.browser)).statusCode).toBe(401);
    // An unknown passkey, and a user handle of another user: refused.
    const stranger = new TestAuthenticator(WEB_HOST);
    const s = await signInOptions(ctx);
    expect((await signIn(ctx, stranger.assert(s.options), s.browser)).json()).toMatchObject({
      code: 'passkey_rejected',
    });
    const h = await signInOptions(ctx);
    key.counter = 4;
    expect(
      (await signIn(ctx, key.assert(h.options, Buffer.from('gantry-user-999999').toString('base64url')), h.browser))
        .statusCode,
    ).toBe(401);
  });

  it('refuses an expired challenge and counts refusals toward the sign-in limits', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const { key } = await addPasskey(u);
    const { options, browser } = await signInOptions(ctx);
    await ctx.db.db
      .updateTable('passkey_challenge')
      .set({ expires: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', sha256(options.challenge))
      .execute();
    key.counter = 1;
    const expired = await signIn(ctx, key.assert(options), browser);
    expect(expired.json()).toMatchObject({ code: 'passkey_challenge_invalid' });
    const failures = await ctx.db.db.selectFrom('auth_failure').selectAll().where('key', '=', `user:${u.id}`).execute();
    expect(failures.length).toBeGreaterThan(0);
  });

  it('removes a passkey only with a proof: password, code or another passkey', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const a = await addPasskey(u, 'A');
    const b = await addPasskey(u, 'B');
    const none = await remove(ctx, u, a.id);
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ code: 'passkey_proof_required' });
    const wrong = await remove(ctx, u, a.id, { password: 'nope' });
    expect(wrong.json()).toMatchObject({ code: 'current_password_incorrect', field: 'password' });
    expect((await u.get('/api/user/passkeys')).json()).toHaveLength(2);

    // A passkey's answer to a proof challenge.
    const options = (await u.post('/api/user/passkeys/proof/options')).json<Options>();
    b.key.counter = 1;
    const proof = b.key.assert(options);
    expect((await remove(ctx, u, a.id, { assertion: proof })).statusCode).toBe(204);
    // Spent: the same answer does not remove another.
    expect((await remove(ctx, u, b.id, { assertion: proof })).json()).toMatchObject({
      code: 'passkey_challenge_invalid',
    });
    expect((await remove(ctx, u, b.id, { password: u.password })).statusCode).toBe(204);
    expect((await u.get('/api/user/passkeys')).json()).toEqual([]);
    // With no passkey left, the password alone signs in again.
    expect((await (await passwordOnly(ctx, u)).get('/api/user')).statusCode).toBe(200);
  });

  it('records passkeys added, renamed and removed in the audit trail, without their key material', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const u = await signedInUser(ctx);
    const { id } = await addPasskey(u, 'Laptop');
    expect((await u.put(`/api/user/passkeys/${id}`, { name: 'Work laptop' })).statusCode).toBe(204);
    expect((await remove(ctx, u, id, { password: u.password })).statusCode).toBe(204);

    const res = await admin.get('/api/audit?object_type=passkey');
    expect(res.statusCode).toBe(200);
    const entries = res.json<AuditEntry[]>().filter((e) => e.object_id === String(id) || e.object_id === id);
    // Newest first.
    expect(entries.map((e) => [e.action, e.actor, e.actor_id, e.project_id])).toEqual([
      ['delete', u.username, u.id, null],
      ['update', u.username, u.id, null],
      ['create', u.username, u.id, null],
    ]);
    const [removed, renamed, added] = entries;
    expect(added!.before).toBeNull();
    expect(added!.after).toEqual({ id, name: 'Laptop', created: expect.any(String) });
    expect(renamed!.before).toEqual({ name: 'Laptop' });
    expect(renamed!.after).toEqual({ name: 'Work laptop' });
    expect(removed!.before).toEqual({ id, name: 'Work laptop', created: added!.after!.created });
    expect(removed!.after).toBeNull();
    // Nothing of the credential: its id, public key or counter.
    const row = await ctx.db.db.selectFrom('audit_entry').selectAll().where('object_type', '=', 'passkey').execute();
    const text = JSON.stringify(row);
    expect(text).not.toMatch(/public_key|credential|counter/);
    // A rename of another user's passkey, or of none, records nothing.
    const other = await signedInUser(ctx);
    const { id: otherId } = await addPasskey(other, 'Theirs');
    expect((await u.put(`/api/user/passkeys/${otherId}`, { name: 'Mine now' })).statusCode).toBe(404);
    const after = (await admin.get('/api/audit?object_type=passkey&action=update')).json<AuditEntry[]>();
    expect(after.filter((e) => String(e.object_id) === String(otherId))).toEqual([]);
    expect(await ctx.app.services.audit.verify()).toMatchObject({ ok: true });
  });
});

describe.each(engines)('the second step offers what the user has ($name)', (engine) => {
  const t = useTestApp(engine, {
    GANTRY_WEB_HOST: WEB_HOST,
    GANTRY_TOTP_ENABLED: 'true',
    GANTRY_TOTP_ALLOW_RECOVERY: 'true',
  });

  it('answers a passkey only, or a passkey, a code and the recovery code, to the session waiting for the step', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/auth/second-factors' })).statusCode).toBe(401);
    expect((await u.get('/api/auth/second-factors')).json()).toEqual({ totp: false, passkey: false, recovery: false });

    await addPasskey(u);
    const pending = await passwordOnly(ctx, u);
    expect((await pending.get('/api/user')).json()).toMatchObject({ code: 'totp_required' });
    const onlyPasskey = await pending.get('/api/auth/second-factors');
    expect(onlyPasskey.statusCode).toBe(200);
    expect(onlyPasskey.json()).toEqual({ totp: false, passkey: true, recovery: false });

    await enableTotp(u);
    const both = await passwordOnly(ctx, u);
    expect((await both.get('/api/auth/second-factors')).json()).toEqual({ totp: true, passkey: true, recovery: true });
    // Nothing else opens meanwhile.
    expect((await both.get('/api/projects')).json()).toMatchObject({ code: 'totp_required' });
  });
});

describe.each(engines)('the second step without recovery codes ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_TOTP_ENABLED: 'true', GANTRY_TOTP_ALLOW_RECOVERY: 'false' });

  it('offers no recovery code where the server does not take one', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    await enableTotp(u);
    const pending = await passwordOnly(ctx, u);
    expect((await pending.get('/api/auth/second-factors')).json()).toEqual({
      totp: true,
      passkey: false,
      recovery: false,
    });
  });
});

describe.each(engines)('passkeys and the two-factor requirement ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_WEB_HOST: WEB_HOST, GANTRY_TOTP_ENABLED: 'true', GANTRY_TOTP_REQUIRED: 'all' });

  it('lets a user meet the requirement with a passkey', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    expect((await u.get('/api/projects')).json()).toMatchObject({ code: 'totp_enrolment_required' });
    const { key } = await addPasskey(u);
    expect((await u.get('/api/projects')).statusCode).toBe(200);

    // Next time: the password, then the passkey (no TOTP method needed), then everything answers.
    const pending = await passwordOnly(ctx, u);
    expect((await pending.get('/api/auth/second-factors')).json()).toEqual({
      totp: false,
      passkey: true,
      recovery: false,
    });
    const options = (await pending.post('/api/auth/passkey/options')).json<Options>();
    key.counter = 1;
    expect((await pending.post('/api/auth/passkey/verify', { response: key.assert(options) })).statusCode).toBe(204);
    expect((await pending.get('/api/projects')).statusCode).toBe(200);
  });

  it('lets an admin meet it with a passkey too', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    expect((await admin.get('/api/projects')).json()).toMatchObject({ code: 'totp_enrolment_required' });
    await addPasskey(admin);
    expect((await admin.get('/api/projects')).statusCode).toBe(200);
  });
});
