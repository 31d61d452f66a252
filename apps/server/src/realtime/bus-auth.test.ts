import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  BUS_WINDOW_MS,
  ReplayGuard,
  deriveBusKeys,
  openFromBus,
  openMessage,
  sealForBus,
  signMessage,
} from './bus-auth.js';

const master = randomBytes(32);
const keys = deriveBusKeys(master);
const header = (q: number, ts = 1_000_000) => ({ n: 'node-a', i: 'p1', q, ts });

describe('bus messages', () => {
  it('derives keys of their own: neither is the master key, nor each other', () => {
    expect(keys.mac.equals(master)).toBe(false);
    expect(keys.enc.equals(master)).toBe(false);
    expect(keys.mac.equals(keys.enc)).toBe(false);
    expect(deriveBusKeys(master).mac.equals(keys.mac)).toBe(true);
  });

  it('opens what was signed with the same keys, and nothing altered or signed otherwise', () => {
    const wire = signMessage(keys, header(1), { k: 'control', t: 7 });
    expect(openMessage(keys, wire)).toEqual({ ok: true, header: header(1), body: { k: 'control', t: 7 } });
    expect(openMessage(deriveBusKeys(randomBytes(32)), wire)).toEqual({ ok: false, reason: 'mac' });
    expect(openMessage(keys, wire.replace('"t":7', '"t":8'))).toEqual({ ok: false, reason: 'mac' });
    expect(openMessage(keys, wire.replace('"q":1', '"q":2'))).toEqual({ ok: false, reason: 'mac' });
    expect(openMessage(keys, wire.replace(/^v1\.[^.]*\./, 'v1..'))).toEqual({ ok: false, reason: 'mac' });
    expect(openMessage(keys, '{"n":"node-a","k":"kick"}')).toEqual({ ok: false, reason: 'format' });
    expect(openMessage(keys, wire.replace(/^v1/, 'v2'))).toEqual({ ok: false, reason: 'format' });
  });

  it('drops a signed message without a sender, a whole sequence number, a time or a kind', () => {
    // Signed as a node would, so only the shape check behind the signature can drop them.
    const signed = (json: string) =>
      `v1.${createHmac('sha256', keys.mac).update(`v1.${json}`).digest('base64url')}.${json}`;
    expect(openMessage(keys, signed(JSON.stringify({ ...header(1), b: { k: 'kick' } }))).ok).toBe(true);
    for (const m of [
      { i: 'p', q: 1, ts: 1, b: { k: 'kick' } },
      { n: 'a', i: 'p', q: 1.5, ts: 1, b: { k: 'kick' } },
      { n: 'a', i: 'p', q: 1, b: { k: 'kick' } },
      { n: 'a', i: 'p', q: 1, ts: 1, b: {} },
    ]) {
      expect(openMessage(keys, signed(JSON.stringify(m)))).toEqual({ ok: false, reason: 'format' });
    }
    expect(openMessage(keys, signed('not json'))).toEqual({ ok: false, reason: 'format' });
  });

  it('seals a payload so only the keys open it', () => {
    const sealed = sealForBus(keys, '{"status":"waiting_confirmation"}');
    expect(sealed).not.toContain('waiting');
    expect(openFromBus(keys, sealed)).toBe('{"status":"waiting_confirmation"}');
    expect(openFromBus(deriveBusKeys(randomBytes(32)), sealed)).toBeNull();
    expect(openFromBus(keys, sealed.slice(0, -2))).toBeNull();
    expect(openFromBus(keys, 42)).toBeNull();
  });
});

describe('ReplayGuard', () => {
  it('takes each message of a process once, in sequence, within the window', () => {
    const guard = new ReplayGuard();
    const now = 1_000_000;
    expect(guard.check(header(1, now), now)).toBe('ok');
    expect(guard.check(header(1, now), now)).toBe('replay');
    expect(guard.check(header(3, now), now)).toBe('ok');
    expect(guard.check(header(2, now), now)).toBe('replay');
    // Another process of the same node (it restarted) counts from 1 again.
    expect(guard.check({ ...header(1, now), i: 'p2' }, now)).toBe('ok');
    expect(guard.check(header(4, now - BUS_WINDOW_MS - 1), now)).toBe('stale');
    expect(guard.check(header(4, now + BUS_WINDOW_MS + 1), now)).toBe('stale');
  });

  it('forgets a silent process only once all it sent is stale', () => {
    const guard = new ReplayGuard(1000);
    expect(guard.check(header(5, 0), 0)).toBe('ok');
    // Swept at 2.5 windows: the message from 0 is stale by then, so forgetting it lets nothing in.
    expect(guard.check({ ...header(1, 2500), i: 'other' }, 2500)).toBe('ok');
    expect(guard.check(header(5, 0), 2500)).toBe('stale');
  });
});
