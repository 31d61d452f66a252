import { SESSION_COOKIE, type GantryEvent } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../platform/crypto.js';
import { engines, signedInUser, uniq, useTestApp, type TestContext } from '../../test/harness.js';
import { ADDRESS_REFUSE_AFTER, FAILURE_WINDOW_MS, REFUSE_AFTER } from './login-throttle.js';

const login = (
  ctx: TestContext,
  auth: string,
  password: string,
  remoteAddress: string,
  headers: Record<string, string> = {},
) => ctx.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, headers, payload: { auth, password } });

/** `n` failed sign-ins from one address, each with another unknown login, ten at a time. */
async function spray(ctx: TestContext, ip: string, n: number): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < n; i += 10) {
    const batch = Array.from({ length: Math.min(10, n - i) }, () => login(ctx, uniq('nobody'), 'x', ip));
    codes.push(...(await Promise.all(batch)).map((r) => r.statusCode));
  }
  return codes;
}

async function lockEvents(ctx: TestContext, text: string): Promise<GantryEvent[]> {
  const admin = await signedInUser(ctx, { admin: true });
  return (await admin.get('/api/events')).json<GantryEvent[]>().filter((e) => e.description.includes(text));
}

function retryAfter(res: { headers: Record<string, unknown> }): number {
  const value = Number(res.headers['retry-after']);
  expect(Number.isInteger(value)).toBe(true);
  return value;
}

describe.each(engines)('sign-in throttling ($name)', (engine) => {
  const t = useTestApp(engine);

  it('locks one account, not the other accounts signing in from the same address', async () => {
    const ctx = t();
    const a = await signedInUser(ctx);
    const b = await signedInUser(ctx);
    const office = '10.60.0.1';
    // By username and by email: both count against the one account.
    for (let i = 0; i < REFUSE_AFTER; i++) {
      const res = await login(ctx, i % 2 ? a.username : `${a.username}@example.com`, 'wrong', office);
      expect(res.statusCode).toBe(401);
    }
    const locked = await login(ctx, a.username, a.password, office);
    expect(locked.statusCode).toBe(429);
    expect(locked.json()).toEqual({
      error: 'Too many failed sign-in attempts, try again later',
      code: 'too_many_attempts',
    });
    const wait = retryAfter(locked);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(FAILURE_WINDOW_MS / 1000);
    // Elsewhere too: it is the account that is locked.
    expect((await login(ctx, a.username, a.password, '10.61.0.1')).statusCode).toBe(429);
    // Another user at the same address signs in.
    expect((await login(ctx, b.username, b.password, office)).statusCode).toBe(204);

    // One line in the activity log for the lock, however often it is hit.
    const events = await lockEvents(ctx, `Sign-in locked for ${a.username} `);
    expect(events).toEqual([
      expect.objectContaining({
        project_id: null,
        user_id: a.id,
        username: a.username,
        object_type: 'user',
        object_id: a.id,
      }),
    ]);
    expect(events[0]!.description).toBe(
      `Sign-in locked for ${a.username} for 15 minutes after ${REFUSE_AFTER} failed attempts`,
    );
  });

  it('checks no more of a burst of wrong passwords for one account than the account allows', async () => {
    const ctx = t();
    const a = await signedInUser(ctx);
    const b = await signedInUser(ctx);
    const ip = '10.66.0.1';
    // All at once: each attempt must take its place before its password is checked, or they all
    // pass the check of a count none of them has raised yet.
    const burst = await Promise.all(Array.from({ length: 150 }, () => login(ctx, a.username, 'wrong', ip)));
    const codes = burst.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 401)).toHaveLength(REFUSE_AFTER);
    expect(codes.filter((c) => c === 429)).toHaveLength(150 - REFUSE_AFTER);
    expect((await login(ctx, a.username, a.password, '10.66.0.2')).statusCode).toBe(429);
    // Only the checked attempts count against the address: another account there still signs in.
    expect((await login(ctx, b.username, b.password, ip)).statusCode).toBe(204);
    expect(await lockEvents(ctx, `Sign-in locked for ${a.username} `)).toHaveLength(1);
  });

  it(
    'locks an address after many failures across accounts, with Retry-After, and records it once',
    { timeout: 120_000 },
    async () => {
      const ctx = t();
      const u = await signedInUser(ctx);
      const ip = '10.62.0.1';
      const codes = await spray(ctx, ip, ADDRESS_REFUSE_AFTER);
      expect(codes.every((c) => c === 401)).toBe(true);
      const refused = await login(ctx, uniq('nobody'), 'x', ip);
      expect(refused.statusCode).toBe(429);
      expect(retryAfter(refused)).toBeGreaterThan(0);
      const right = await login(ctx, u.username, u.password, ip);
      expect(right.statusCode).toBe(429);
      expect(right.headers['retry-after']).toBeDefined();
      // The same user from another address is not affected.
      expect((await login(ctx, u.username, u.password, '10.63.0.1')).statusCode).toBe(204);
      expect(await lockEvents(ctx, `address ${ip} `)).toEqual([
        expect.objectContaining({
          project_id: null,
          user_id: null,
          description: `Sign-in locked for address ${ip} for 15 minutes after ${ADDRESS_REFUSE_AFTER} failed attempts`,
        }),
      ]);
    },
  );

  it('does not lock an address for fewer failures than its limit, spread over accounts', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const ip = '10.64.0.1';
    // More than one account's limit: an office's typos do not lock everyone out.
    await spray(ctx, ip, REFUSE_AFTER * 2);
    expect((await login(ctx, u.username, u.password, ip)).statusCode).toBe(204);
  });

  it('ignores X-Forwarded-For when no proxy is trusted', async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const res = await login(ctx, u.username, u.password, '10.65.0.1', { 'x-forwarded-for': '203.0.113.50' });
    expect(res.statusCode).toBe(204);
    expect(await sessionIp(ctx, res.cookies.find((c) => c.name === SESSION_COOKIE)!.value)).toBe('10.65.0.1');
    await login(ctx, uniq('nobody'), 'x', '10.65.0.2', { 'x-forwarded-for': '203.0.113.51' });
    expect(await failureKeys(ctx, ['ip:203.0.113.51', 'ip:10.65.0.2'])).toEqual(['ip:10.65.0.2']);
  });
});

describe.each(engines)('sign-in behind a trusted proxy ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_TRUST_PROXY: '10.70.0.0/16, 127.0.0.1' });

  it("takes the client's address from X-Forwarded-For sent by a trusted proxy only", async () => {
    const ctx = t();
    const u = await signedInUser(ctx);
    const viaProxy = await login(ctx, u.username, u.password, '10.70.0.5', { 'x-forwarded-for': '203.0.113.60' });
    expect(await sessionIp(ctx, viaProxy.cookies.find((c) => c.name === SESSION_COOKIE)!.value)).toBe('203.0.113.60');
    const direct = await login(ctx, u.username, u.password, '10.71.0.5', { 'x-forwarded-for': '203.0.113.61' });
    expect(await sessionIp(ctx, direct.cookies.find((c) => c.name === SESSION_COOKIE)!.value)).toBe('10.71.0.5');

    // Failures count against the client behind the proxy, not the proxy (everyone).
    await login(ctx, uniq('nobody'), 'x', '10.70.0.5', { 'x-forwarded-for': '203.0.113.62' });
    expect(await failureKeys(ctx, ['ip:203.0.113.62', 'ip:10.70.0.5'])).toEqual(['ip:203.0.113.62']);
  });
});

async function sessionIp(ctx: TestContext, cookie: string): Promise<string> {
  const row = await ctx.db.db
    .selectFrom('session')
    .select('ip')
    .where('id', '=', sha256(cookie))
    .executeTakeFirstOrThrow();
  return row.ip;
}

async function failureKeys(ctx: TestContext, keys: string[]): Promise<string[]> {
  const rows = await ctx.db.db.selectFrom('auth_failure').select('key').where('key', 'in', keys).execute();
  return rows.map((r) => r.key).sort();
}
