import { SESSION_COOKIE, CSRF_HEADER } from '@gantry/contracts';
import { Attribute, Change } from 'ldapts';
import net from 'node:net';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SecretBox } from '../../platform/crypto.js';
import { engines, signedInUser, uniq, useTestApp, type TestContext } from '../../test/harness.js';
import { ADMIN_DN, ADMIN_PASSWORD, GROUPS, PEOPLE, dnOf, people, startSlapd, type Slapd } from '../../test/slapd.js';
import { REFUSE_AFTER } from '../auth/login-throttle.js';

let slapd: Slapd;
/** Filled once slapd listens; useTestApp reads it in its own beforeAll, which runs after this one. */
const env: Record<string, string> = {};
/** A closed port, and a server that accepts connections and never answers. */
let closedPort = 0;
let silent: net.Server;
const held: net.Socket[] = [];

beforeAll(async () => {
  slapd = await startSlapd();
  closedPort = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
  silent = net.createServer((sock) => held.push(sock));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  Object.assign(env, {
    GANTRY_LDAP_ENABLED: 'true',
    GANTRY_LDAP_URL: slapd.url,
    GANTRY_LDAP_BIND_DN: ADMIN_DN,
    GANTRY_LDAP_BIND_PASSWORD: ADMIN_PASSWORD,
    GANTRY_LDAP_SEARCH_BASE: PEOPLE,
    GANTRY_LDAP_NAME_ATTRIBUTE: 'displayName',
    GANTRY_LDAP_DISABLED_FILTER: '(employeeType=disabled)',
    GANTRY_TOTP_ENABLED: 'true',
  });
}, 30_000);
afterAll(async () => {
  held.forEach((sock) => sock.destroy());
  await new Promise((resolve) => silent?.close(resolve));
  await slapd?.stop();
});

let ipSeq = 0;
/** Each test signs in from its own address, so the address limits of one never touch another. */
const nextIp = () => `10.77.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`;

const login = (ctx: TestContext, auth: string, password: string, remoteAddress = '10.70.0.1') =>
  ctx.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, payload: { auth, password } });

const cookieOf = (res: { cookies: { name: string; value: string }[] }) =>
  res.cookies.find((c) => c.name === SESSION_COOKIE)!.value;

const me = (ctx: TestContext, cookie: string) =>
  ctx.app.inject({ method: 'GET', url: '/api/user', cookies: { [SESSION_COOKIE]: cookie } });

const INCORRECT = { error: 'Incorrect login or password', code: 'incorrect_login' };

describe.each(engines)('LDAP sign-in ($name)', (engine) => {
  const t = useTestApp(engine, env);

  it('creates an external user at the first sign-in, updates them at the next, and lists them as external', async () => {
    const ctx = t();
    const uid = uniq('erin');
    await slapd.addUser(uid, 'erin-pass', { displayName: 'Erin First', mail: `${uid}@example.org` });
    const first = await login(ctx, uid, 'erin-pass', nextIp());
    expect(first.statusCode).toBe(204);
    const user = (await me(ctx, cookieOf(first))).json();
    expect(user).toMatchObject({
      username: uid,
      name: 'Erin First',
      email: `${uid}@example.org`,
      external: true,
      admin: false,
    });
    const row = await ctx.app.services.users.findById(user.id);
    expect(row?.password).toBeNull();

    await slapd.admin((c) =>
      c.modify(dnOf(uid), [
        changeReplace('displayName', 'Erin Second'),
        changeReplace('mail', `${uid}.new@example.org`),
      ]),
    );
    // By email this time: a linked user is looked up by their directory login.
    const second = await login(ctx, `${uid}@example.org`, 'erin-pass', nextIp());
    expect(second.statusCode).toBe(204);
    expect((await me(ctx, cookieOf(second))).json()).toMatchObject({
      id: user.id,
      name: 'Erin Second',
      email: `${uid}.new@example.org`,
      external: true,
    });

    const admin = await signedInUser(ctx, { admin: true });
    const listed = (await admin.get('/api/users'))
      .json<{ id: number; external: boolean }[]>()
      .find((u) => u.id === user.id);
    expect(listed?.external).toBe(true);
  });

  it('signs in local users with their password as before, never through the directory', async () => {
    const ctx = t();
    // signedInUser signs in with the local password; a local user named like a directory entry keeps it.
    const local = await signedInUser(ctx);
    expect((await local.get('/api/user')).statusCode).toBe(200);
    await ctx.app.services.users.create({
      username: 'bob',
      name: 'Local Bob',
      email: 'local-bob@example.com',
      password: 'local-pass',
      admin: false,
      external: false,
      alert: false,
    });
    expect((await login(ctx, 'bob', people.bob.password, nextIp())).json()).toEqual(INCORRECT);
    expect((await login(ctx, 'bob', 'local-pass', nextIp())).statusCode).toBe(204);
  });

  it('answers a wrong password and an unknown user alike', async () => {
    const ctx = t();
    const wrong = await login(ctx, people.alice.uid, 'not-her-password', nextIp());
    const unknown = await login(ctx, uniq('nobody'), 'whatever', nextIp());
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(INCORRECT);
    expect(unknown.json()).toEqual(INCORRECT);
    expect(await ctx.app.services.users.findByLogin(people.alice.uid)).toBeUndefined();
  });

  it('refuses disabled accounts (a ppolicy lock, the disabled filter) with their own code', async () => {
    const ctx = t();
    for (const p of [people.carol, people.dave]) {
      const res = await login(ctx, p.uid, p.password, nextIp());
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'This account is disabled in the directory', code: 'ldap_account_disabled' });
      expect(await ctx.app.services.users.findByLogin(p.uid)).toBeUndefined();
    }
  });

  it('escapes the login in the filter: wildcards and filter syntax match nobody', async () => {
    const ctx = t();
    // Unescaped, each of these would find alice alone and her password would sign in.
    for (const auth of ['ali*', '*)(uid=alice', 'alice)(|(uid=*', '*', 'alic\\65']) {
      const res = await login(ctx, auth, people.alice.password, nextIp());
      expect(res.json(), auth).toEqual(INCORRECT);
    }
    expect(await ctx.app.services.users.findByLogin(people.alice.uid)).toBeUndefined();
  });

  it('counts directory failures toward the sign-in limits, a concurrent burst included', async () => {
    const ctx = t();
    const ip = nextIp();
    const burst = await Promise.all(
      Array.from({ length: 3 * REFUSE_AFTER }, () => login(ctx, people.bob.uid, 'wrong', ip)),
    );
    const codes = burst.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 401).length).toBe(REFUSE_AFTER);
    expect(codes.filter((c) => c === 429).length).toBe(2 * REFUSE_AFTER);
    // Locked: the right password too, from anywhere.
    const locked = await login(ctx, people.bob.uid, people.bob.password, nextIp());
    expect(locked.statusCode).toBe(429);
    expect(locked.json().code).toBe('too_many_attempts');

    // A disabled account's refusals count too.
    const off = uniq('off');
    await slapd.addUser(off, 'off-pass', { mail: `${off}@example.org`, employeeType: 'disabled' });
    const offIp = nextIp();
    for (let i = 0; i < REFUSE_AFTER; i++) expect((await login(ctx, off, 'off-pass', offIp)).statusCode).toBe(403);
    expect((await login(ctx, off, 'off-pass', nextIp())).statusCode).toBe(429);
  });

  it('hands the groups from memberOf (DNs and CNs) to the mappings at each sign-in', async () => {
    const ctx = t();
    const spy = vi.spyOn(ctx.app.services.identityMappings, 'applyAtSignIn');
    try {
      const res = await login(ctx, people.alice.uid, people.alice.password, nextIp());
      expect(res.statusCode).toBe(204);
      const id = (await me(ctx, cookieOf(res))).json().id;
      expect(spy).toHaveBeenCalledTimes(1);
      const [userId, source, groups] = spy.mock.calls[0]!;
      expect([userId, source]).toEqual([id, 'ldap']);
      expect([...groups].sort()).toEqual([`cn=admins,${GROUPS}`, `cn=devs,${GROUPS}`, 'admins', 'devs'].sort());
    } finally {
      spy.mockRestore();
    }
  });

  it('signs out users deleted from the directory or disabled there at the next check, API tokens included', async () => {
    const ctx = t();
    const gone = uniq('gone');
    const off = uniq('off');
    await slapd.addUser(gone, 'gone-pass', { mail: `${gone}@example.org` });
    await slapd.addUser(off, 'off-pass', { mail: `${off}@example.org` });
    const a = cookieOf(await login(ctx, gone, 'gone-pass', nextIp()));
    const b = cookieOf(await login(ctx, off, 'off-pass', nextIp()));
    const alice = cookieOf(await login(ctx, people.alice.uid, people.alice.password, nextIp()));
    expect((await me(ctx, a)).statusCode).toBe(200);
    // A third one keeps only an API token (signed out of the console): the check finds them too.
    const tokenOnly = uniq('tok');
    await slapd.addUser(tokenOnly, 'tok-pass', { mail: `${tokenOnly}@example.org` });
    const c = cookieOf(await login(ctx, tokenOnly, 'tok-pass', nextIp()));
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/user/tokens',
      cookies: { [SESSION_COOKIE]: c },
      headers: { [CSRF_HEADER]: '1' },
    });
    expect(created.statusCode).toBe(201);
    const bearer = () =>
      ctx.app.inject({ method: 'GET', url: '/api/user', headers: { authorization: `Bearer ${created.json().id}` } });
    await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      cookies: { [SESSION_COOKIE]: c },
      headers: { [CSRF_HEADER]: '1' },
    });
    expect((await bearer()).statusCode).toBe(200);

    await slapd.deleteUser(gone);
    await slapd.deleteUser(tokenOnly);
    await slapd.admin((c) => c.modify(dnOf(off), [changeReplace('employeeType', 'disabled')]));
    expect(await ctx.app.services.ldap!.checkSessions()).toBe(3);
    expect((await me(ctx, a)).statusCode).toBe(401);
    expect((await bearer()).statusCode).toBe(401);
    expect((await me(ctx, b)).statusCode).toBe(401);
    // Others stay signed in.
    expect((await me(ctx, alice)).statusCode).toBe(200);
    // And cannot sign in again.
    expect((await login(ctx, gone, 'gone-pass', nextIp())).json()).toEqual(INCORRECT);
    expect((await login(ctx, off, 'off-pass', nextIp())).json().code).toBe('ldap_account_disabled');
  });

  it('asks LDAP users for their second factor like everyone else', async () => {
    const ctx = t();
    const uid = uniq('tina');
    await slapd.addUser(uid, 'tina-pass', { mail: `${uid}@example.org` });
    const id = (await me(ctx, cookieOf(await login(ctx, uid, 'tina-pass', nextIp())))).json().id as number;
    const admin = await signedInUser(ctx, { admin: true });
    expect((await admin.post(`/api/users/${id}/2fas/totp`)).statusCode).toBe(201);
    const pending = cookieOf(await login(ctx, uid, 'tina-pass', nextIp()));
    const waiting = await me(ctx, pending);
    expect(waiting.statusCode).toBe(401);
    expect(waiting.json().code).toBe('totp_required');
    const row = await ctx.db.db
      .selectFrom('user_totp')
      .select('secret')
      .where('user_id', '=', id)
      .executeTakeFirstOrThrow();
    const totp = new TOTP({ secret: Secret.fromBase32(new SecretBox(ctx.secretKey).open(row.secret)) });
    const verify = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/verify',
      cookies: { [SESSION_COOKIE]: pending },
      headers: { [CSRF_HEADER]: '1' },
      payload: { passcode: totp.generate() },
    });
    expect(verify.statusCode).toBe(204);
    expect((await me(ctx, pending)).statusCode).toBe(200);
  });
});

describe.each(engines)('LDAP group search ($name)', (engine) => {
  const groupEnv: Record<string, string> = {};
  beforeAll(() => {
    Object.assign(groupEnv, env, { GANTRY_LDAP_GROUP_ATTRIBUTE: '', GANTRY_LDAP_GROUP_SEARCH_BASE: GROUPS });
  });
  const t = useTestApp(engine, groupEnv);

  it('finds groupOfNames and groupOfUniqueNames memberships by search', async () => {
    const ctx = t();
    const spy = vi.spyOn(ctx.app.services.identityMappings, 'applyAtSignIn');
    try {
      expect((await login(ctx, people.bob.uid, people.bob.password, nextIp())).statusCode).toBe(204);
      const groups = spy.mock.calls[0]![2];
      expect([...groups].sort()).toEqual([`cn=devs,${GROUPS}`, `cn=ops,${GROUPS}`, 'devs', 'ops'].sort());
    } finally {
      spy.mockRestore();
    }
  });
});

describe.each(engines)('LDAP over TLS ($name)', (engine) => {
  const ldaps: Record<string, string> = {};
  const startTls: Record<string, string> = {};
  const untrusted: Record<string, string> = {};
  beforeAll(() => {
    Object.assign(ldaps, env, { GANTRY_LDAP_URL: slapd.ldapsUrl, GANTRY_LDAP_CA_FILE: slapd.caFile });
    Object.assign(startTls, env, { GANTRY_LDAP_STARTTLS: 'true', GANTRY_LDAP_CA_FILE: slapd.caFile });
    Object.assign(untrusted, env, { GANTRY_LDAP_URL: slapd.ldapsUrl });
  });
  const overLdaps = useTestApp(engine, ldaps);
  const overStartTls = useTestApp(engine, startTls);
  const withoutCa = useTestApp(engine, untrusted);

  it('signs in over ldaps:// and StartTLS with the CA file, and refuses a certificate it cannot trust', async () => {
    expect((await login(overLdaps(), people.alice.uid, people.alice.password, nextIp())).statusCode).toBe(204);
    expect((await login(overStartTls(), people.alice.uid, people.alice.password, nextIp())).statusCode).toBe(204);
    const refused = await login(withoutCa(), people.alice.uid, people.alice.password, nextIp());
    expect(refused.statusCode).toBe(503);
    expect(refused.json().code).toBe('ldap_unavailable');
  });
});

describe.each(engines)('LDAP directory unreachable ($name)', (engine) => {
  const downEnv: Record<string, string> = {};
  beforeAll(() => {
    Object.assign(downEnv, env, {
      GANTRY_LDAP_URL: `ldap://127.0.0.1:${closedPort}`,
      GANTRY_LDAP_TIMEOUT_SECONDS: '1',
    });
  });
  const t = useTestApp(engine, downEnv);

  it('answers 503 with its own code at once, and counts toward the limits', async () => {
    const ctx = t();
    const started = Date.now();
    const res = await login(ctx, people.alice.uid, people.alice.password, nextIp());
    expect(Date.now() - started).toBeLessThan(1000);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      error: 'The directory server could not be reached; try again later',
      code: 'ldap_unavailable',
    });
    const ip = nextIp();
    for (let i = 0; i < REFUSE_AFTER; i++) expect((await login(ctx, 'frank', 'x', ip)).statusCode).toBe(503);
    expect((await login(ctx, 'frank', 'x', nextIp())).statusCode).toBe(429);
  });
});

describe.each(engines)('LDAP directory silent ($name)', (engine) => {
  const silentEnv: Record<string, string> = {};
  beforeAll(() => {
    const { port } = silent.address() as net.AddressInfo;
    Object.assign(silentEnv, env, { GANTRY_LDAP_URL: `ldap://127.0.0.1:${port}`, GANTRY_LDAP_TIMEOUT_SECONDS: '1' });
  });
  const t = useTestApp(engine, silentEnv);

  it('gives up on a directory that does not answer within the timeout, and signs nobody out for it', async () => {
    const ctx = t();
    const started = Date.now();
    const res = await login(ctx, people.alice.uid, people.alice.password, nextIp());
    const took = Date.now() - started;
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('ldap_unavailable');
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(3000);
    // A user linked earlier, with a session: the silent directory does not sign them out.
    const user = await ctx.app.services.users.create({
      username: 'linked',
      name: 'Linked',
      email: 'linked@example.org',
      admin: false,
      external: true,
      alert: false,
    });
    await ctx.db.db
      .insertInto('ldap_user')
      .values({ user_id: user.id, dn: dnOf('linked'), login: 'linked', created: 'x', last_sign_in: 'x' })
      .execute();
    const session = await ctx.app.services.auth.openSession(user.id, { ip: '10.1.1.1', userAgent: 't' });
    expect(await ctx.app.services.ldap!.checkSessions()).toBe(0);
    expect((await me(ctx, session)).statusCode).toBe(200);
  });
});

function changeReplace(type: string, value: string): Change {
  return new Change({ operation: 'replace', modification: new Attribute({ type, values: [value] }) });
}
