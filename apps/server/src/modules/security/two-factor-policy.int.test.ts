import { CSRF_HEADER, SESSION_COOKIE } from '@gantry/contracts';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { Secret, TOTP } from 'otpauth';
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../platform/crypto.js';
import { engines, signedInUser, useTestApp, type Caller, type TestContext } from '../../test/harness.js';
import { REFUSE_AFTER } from '../auth/login-throttle.js';

const POLICY_URL = '/api/admin/settings/two-factor';
const BLOCKED = { error: 'Set up two-factor sign-in to continue', code: 'totp_enrolment_required' };
const STEP_MS = 30_000;

/** Starts one's own method and answers its id with an authenticator app holding its secret. */
async function startEnrolment(u: Caller) {
  const res = await u.post(`/api/users/${u.id}/2fas/totp`, { password: u.password });
  expect(res.statusCode).toBe(201);
  const body = res.json<{ id: number; secret: string }>();
  const totp = new TOTP({ secret: Secret.fromBase32(body.secret) });
  const valid = () => new Set([-1, 0, 1, 2].map((o) => totp.generate({ timestamp: Date.now() + o * STEP_MS })));
  return {
    id: body.id,
    code: () => totp.generate(),
    wrong: () => {
      const ok = valid();
      let n = 0;
      while (ok.has(String(n).padStart(6, '0'))) n += 1;
      return String(n).padStart(6, '0');
    },
  };
}

/** Sets one's own method up completely (start and confirm). */
async function enrol(u: Caller): Promise<void> {
  const m = await startEnrolment(u);
  expect((await u.post(`/api/users/${u.id}/2fas/totp/${m.id}/confirm`, { code: m.code() })).statusCode).toBe(204);
}

async function setPolicy(admin: Caller, required: string): Promise<void> {
  const res = await admin.put(POLICY_URL, { required });
  expect(res.statusCode, res.body).toBe(200);
}

const bearer = (ctx: TestContext, token: string, url: string) =>
  ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

describe.each(engines)('enforced two-factor sign-in ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_TOTP_ENABLED: 'true' });
  // The admin who changes the policy has two-factor sign-in, so no policy ever blocks them.
  let admin: Caller;
  beforeAll(async () => {
    admin = await signedInUser(t(), { admin: true });
    await enrol(admin);
  });

  it('lets admins read and change the policy; refuses others and bad values without a change', async () => {
    const ctx = t();
    await setPolicy(admin, 'off');
    expect((await admin.get(POLICY_URL)).json()).toEqual({ required: 'off', fixed: false, totp_enabled: true });
    const user = await signedInUser(ctx);
    expect((await user.get(POLICY_URL)).statusCode).toBe(403);
    const byUser = await user.put(POLICY_URL, { required: 'off' });
    expect(byUser.statusCode).toBe(403);
    expect(byUser.json()).toMatchObject({ code: 'forbidden' });
    const bad = await admin.put(POLICY_URL, { required: 'everyone' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'must_be_one_of', field: 'required' });
    expect((await admin.put(POLICY_URL, {})).statusCode).toBe(400);
    expect((await admin.get(POLICY_URL)).json().required).toBe('off');
    const set = await admin.put(POLICY_URL, { required: 'admins' });
    expect(set.json()).toEqual({ required: 'admins', fixed: false, totp_enabled: true });
    expect((await admin.get(POLICY_URL)).json().required).toBe('admins');
    const events = await ctx.db.db.selectFrom('event').select('description').where('user_id', '=', admin.id).execute();
    expect(events.map((e) => e.description)).toContain('Two-factor sign-in requirement changed from off to admins');
    await setPolicy(admin, 'off');
  });

  it('off: nobody is asked to set it up', async () => {
    const ctx = t();
    await setPolicy(admin, 'off');
    const user = await signedInUser(ctx);
    const otherAdmin = await signedInUser(ctx, { admin: true });
    expect((await user.get('/api/projects')).statusCode).toBe(200);
    expect((await otherAdmin.get('/api/projects')).statusCode).toBe(200);
  });

  it('admins: blocks admins without two-factor sign-in only', async () => {
    const ctx = t();
    await setPolicy(admin, 'admins');
    const user = await signedInUser(ctx);
    const bare = await signedInUser(ctx, { admin: true });
    expect((await user.get('/api/projects')).statusCode).toBe(200);
    expect((await admin.get('/api/projects')).statusCode).toBe(200);
    const blocked = await bare.get('/api/users');
    expect(blocked.statusCode).toBe(403);
    expect(blocked.json()).toEqual(BLOCKED);
    await enrol(bare);
    expect((await bare.get('/api/users')).statusCode).toBe(200);
    await setPolicy(admin, 'off');
  });

  it('all: only enrolment works until a code is confirmed, then everything at once in the same session', async () => {
    const ctx = t();
    await setPolicy(admin, 'all');
    const user = await signedInUser(ctx);
    const other = await signedInUser(ctx);
    for (const [method, url] of [
      ['GET', '/api/projects'],
      ['POST', '/api/projects'],
      ['GET', '/api/user/tokens'],
      ['POST', '/api/user/tokens'],
      ['GET', `/api/users/${user.id}`],
    ] as const) {
      const res = method === 'GET' ? await user.get(url) : await user.post(url, { name: 'p' });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json(), `${method} ${url}`).toEqual(BLOCKED);
    }
    // What the enrolment screen needs.
    expect((await user.get('/api/user')).json()).toMatchObject({ id: user.id, totp: null });
    expect((await user.get('/api/info')).statusCode).toBe(200);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/ping' })).statusCode).toBe(200);
    // Only one's own method: not another user's.
    expect((await user.post(`/api/users/${other.id}/2fas/totp`, {})).json()).toEqual(BLOCKED);
    const m = await startEnrolment(user);
    expect((await user.get(`/api/users/${user.id}/2fas/totp/${m.id}/qr`)).statusCode).toBe(200);
    // A method that waits for its code is not yet enough.
    expect((await user.get('/api/projects')).json()).toEqual(BLOCKED);
    const wrong = await user.post(`/api/users/${user.id}/2fas/totp/${m.id}/confirm`, { code: m.wrong() });
    expect(wrong.json()).toMatchObject({ code: 'totp_code_incorrect' });
    expect((await user.post(`/api/users/${user.id}/2fas/totp/${m.id}/confirm`, { code: m.code() })).statusCode).toBe(
      204,
    );
    expect((await user.get('/api/projects')).statusCode).toBe(200);
    expect((await user.post('/api/user/tokens')).statusCode).toBe(201);
    // The admin's users list shows who has two-factor sign-in.
    const list = (await admin.get('/api/users')).json<{ id: number; totp: { id: number } | null }[]>();
    expect(list.find((u) => u.id === user.id)?.totp).toEqual({ id: m.id });
    expect(list.find((u) => u.id === other.id)?.totp).toBeNull();
    // Signing out works while blocked.
    const out = await other.post('/api/auth/logout');
    expect(out.statusCode).toBe(204);
    expect((await other.get('/api/user')).statusCode).toBe(401);
    await setPolicy(admin, 'off');
  });

  it("refuses a blocked user's API tokens with the same code, and takes them again once set up", async () => {
    const ctx = t();
    await setPolicy(admin, 'off');
    const user = await signedInUser(ctx);
    const { id: token } = (await user.post('/api/user/tokens')).json<{ id: string }>();
    expect((await bearer(ctx, token, '/api/projects')).statusCode).toBe(200);
    await setPolicy(admin, 'all');
    for (const url of ['/api/projects', '/api/user']) {
      const res = await bearer(ctx, token, url);
      expect(res.statusCode, url).toBe(403);
      expect(res.json(), url).toEqual(BLOCKED);
    }
    await enrol(user);
    expect((await bearer(ctx, token, '/api/projects')).statusCode).toBe(200);
    await setPolicy(admin, 'off');
  });

  it('checks no more of a burst of wrong enrolment codes than the sign-in limit allows', async () => {
    const ctx = t();
    await setPolicy(admin, 'all');
    const user = await signedInUser(ctx);
    const m = await startEnrolment(user);
    const wrong = m.wrong();
    const burst = await Promise.all(
      Array.from({ length: 200 }, () =>
        ctx.app.inject({
          method: 'POST',
          url: `/api/users/${user.id}/2fas/totp/${m.id}/confirm`,
          remoteAddress: '10.44.0.1',
          cookies: { [SESSION_COOKIE]: user.cookie },
          headers: { [CSRF_HEADER]: '1' },
          payload: { code: wrong },
        }),
      ),
    );
    const codes = burst.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 400)).toHaveLength(REFUSE_AFTER);
    expect(codes.filter((c) => c === 429)).toHaveLength(200 - REFUSE_AFTER);
    // Even the right code waits now, and the user stays blocked.
    expect((await user.post(`/api/users/${user.id}/2fas/totp/${m.id}/confirm`, { code: m.code() })).statusCode).toBe(
      429,
    );
    expect((await user.get('/api/projects')).json()).toEqual(BLOCKED);
    await setPolicy(admin, 'off');
  });

  describe('sockets', () => {
    let base = '';
    beforeAll(async () => {
      await t().app.listen({ port: 0, host: '127.0.0.1' });
      base = `ws://127.0.0.1:${(t().app.server.address() as AddressInfo).port}`;
    });

    it('refuses a socket to a blocked user and closes one that was open when the policy came', async () => {
      const ctx = t();
      await setPolicy(admin, 'off');
      const user = await signedInUser(ctx);
      const open = await openSocket(base, user.cookie);
      await setPolicy(admin, 'all');
      await expect(openSocket(base, user.cookie)).rejects.toThrow('HTTP 403');
      // The hub checks open sockets' credentials every second.
      const code = await Promise.race([
        open.closed,
        new Promise<string>((r) => setTimeout(() => r('still open'), 5000)),
      ]);
      expect(code).not.toBe('still open');
      await setPolicy(admin, 'off');
    });
  });
});

/** The part of the `ws` client the test uses (the package ships no type declarations here). */
interface ClientSocket {
  on(event: 'open', fn: () => void): void;
  on(event: 'close', fn: (code: number) => void): void;
  on(event: 'unexpected-response', fn: (req: unknown, res: { statusCode: number }) => void): void;
  on(event: 'error', fn: (err: Error) => void): void;
  close(): void;
}
const WebSocket = createRequire(import.meta.url)('ws') as new (
  url: string,
  options: { headers: Record<string, string> },
) => ClientSocket;

function openSocket(base: string, cookie: string): Promise<{ closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base}/api/ws`, { headers: { cookie: `${SESSION_COOKIE}=${cookie}` } });
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    ws.on('open', () => resolve({ closed }));
    ws.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.on('error', reject);
  });
}

describe.each(engines)('two-factor requirement fixed by GANTRY_TOTP_REQUIRED ($name)', (engine) => {
  // GANTRY_TOTP_ENABLED is left unset: a requirement turns two-factor sign-in on.
  const t = useTestApp(engine, { GANTRY_TOTP_REQUIRED: 'all' });

  it('answers GET /api/projects with exactly the enrolment code; the policy cannot be changed', async () => {
    const ctx = t();
    const user = await signedInUser(ctx);
    const res = await user.get('/api/projects');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(BLOCKED);
    const admin = await signedInUser(ctx, { admin: true });
    expect((await admin.get(POLICY_URL)).json()).toEqual(BLOCKED);
    await enrol(admin);
    expect((await admin.get(POLICY_URL)).json()).toEqual({ required: 'all', fixed: true, totp_enabled: true });
    const change = await admin.put(POLICY_URL, { required: 'off' });
    expect(change.statusCode).toBe(409);
    expect(change.json()).toMatchObject({ code: 'two_factor_policy_fixed' });
    expect((await user.get('/api/projects')).json()).toEqual(BLOCKED);
    await enrol(user);
    expect((await user.get('/api/projects')).statusCode).toBe(200);
  });
});

describe.each(engines)('two-factor requirement without two-factor sign-in ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_TOTP_ENABLED: 'false' });

  it('refuses a policy nobody could meet, and blocks nobody', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const res = await admin.put(POLICY_URL, { required: 'all' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Two-factor sign-in is not enabled on this server',
      code: 'totp_disabled',
      field: 'required',
    });
    expect((await admin.get(POLICY_URL)).json()).toEqual({ required: 'off', fixed: false, totp_enabled: false });
    await setPolicy(admin, 'off');
    // A value stored while it was on (or by hand) is not enforced while it is off.
    await ctx.db.db.updateTable('instance_setting').set({ value: '"all"' }).execute();
    const user = await signedInUser(ctx);
    expect((await user.get('/api/projects')).statusCode).toBe(200);
    // A password sign-in is never marked as checked by a provider.
    const row = await ctx.db.db
      .selectFrom('session')
      .select('mfa_by_provider')
      .where('id', '=', sha256(user.cookie))
      .executeTakeFirstOrThrow();
    expect(row.mfa_by_provider).toBe(0);
  });
});
