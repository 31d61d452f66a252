import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signed messages between the nodes sharing a PostgreSQL database. Any role that may connect to
 * the database can NOTIFY on the bus channel and LISTEN to it, so a node believes only messages
 * signed with a key derived from the master key (which only the nodes hold), sent within the last
 * minute, and each at most once. Whatever is more than ids travels encrypted.
 *
 * Wire form: `v1.<HMAC-SHA256, base64url>.<JSON>`, the MAC taken over `v1.<JSON>` exactly as sent,
 * so nothing is re-serialised before it is checked. The JSON holds the sender's node id (`n`), a
 * random id of the sending process (`i`), its sequence number in that process (`q`), the send
 * time in ms (`ts`) and the body (`b`).
 */

const VERSION = 'v1';
/** Messages older or newer than this (sender and receiver clocks included) are dropped. */
export const BUS_WINDOW_MS = 60_000;

/** Keys for the bus, each derived from the master key for this use only. */
export interface BusKeys {
  readonly mac: Buffer;
  readonly enc: Buffer;
}

/** HKDF-SHA256 of the master key with a label per use: the master key itself never signs or encrypts here. */
export function deriveBusKeys(masterKey: Buffer): BusKeys {
  const derive = (label: string) => Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), label, 32));
  return { mac: derive('gantry bus v1 mac'), enc: derive('gantry bus v1 enc') };
}

/** Who sent a message, from which process, its place in that process's sequence, and when. */
export interface BusHeader {
  n: string;
  i: string;
  q: number;
  ts: number;
}

/** Why a received message was dropped. */
export type BusDropReason = 'format' | 'mac' | 'stale' | 'replay' | 'task';

export type OpenedMessage =
  { ok: true; header: BusHeader; body: Record<string, unknown> & { k: string } } | { ok: false; reason: BusDropReason };

function mac(keys: BusKeys, signed: string): Buffer {
  return createHmac('sha256', keys.mac).update(signed).digest();
}

/** The wire text of a message: the header and body, signed. */
export function signMessage(keys: BusKeys, header: BusHeader, body: { k: string; [field: string]: unknown }): string {
  const signed = `${VERSION}.${JSON.stringify({ ...header, b: body })}`;
  return `${VERSION}.${mac(keys, signed).toString('base64url')}.${signed.slice(VERSION.length + 1)}`;
}

/** Checks the signature first, and only then reads the message; never throws. */
export function openMessage(keys: BusKeys, wire: string): OpenedMessage {
  const first = wire.indexOf('.');
  const second = wire.indexOf('.', first + 1);
  if (first < 0 || second < 0 || wire.slice(0, first) !== VERSION) return { ok: false, reason: 'format' };
  const given = Buffer.from(wire.slice(first + 1, second), 'base64url');
  const json = wire.slice(second + 1);
  const expected = mac(keys, `${VERSION}.${json}`);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'mac' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { ok: false, reason: 'format' };
  }
  const m = parsed as Partial<BusHeader> & { b?: unknown };
  const body = m.b as { k?: unknown } | null | undefined;
  if (
    typeof m.n !== 'string' ||
    typeof m.i !== 'string' ||
    !Number.isSafeInteger(m.q) ||
    !Number.isFinite(m.ts) ||
    typeof body !== 'object' ||
    body === null ||
    typeof body.k !== 'string'
  ) {
    return { ok: false, reason: 'format' };
  }
  return {
    ok: true,
    header: { n: m.n, i: m.i, q: m.q!, ts: m.ts! },
    body: body as Record<string, unknown> & { k: string },
  };
}

/** AES-256-GCM with the bus's encryption key: `iv.tag.ciphertext`, base64url. */
export function sealForBus(keys: BusKeys, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keys.enc, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url')).join('.');
}

/** What `sealForBus` sealed, or null when it does not open. */
export function openFromBus(keys: BusKeys, sealed: unknown): string | null {
  if (typeof sealed !== 'string') return null;
  const [iv, tag, data] = sealed.split('.');
  if (!iv || !tag || data === undefined) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keys.enc, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/**
 * Remembers, per sending process, the highest sequence number accepted: a message whose number
 * is not higher was seen already (a node's messages arrive in the order it sent them, on one
 * connection). Entries of processes silent for longer than the window are forgotten: whatever
 * they sent is stale by then.
 */
export class ReplayGuard {
  private readonly last = new Map<string, { q: number; ts: number }>();
  private nextSweep = 0;

  constructor(private readonly windowMs: number = BUS_WINDOW_MS) {}

  /** Whether the message is fresh and new; records it when it is. */
  check(h: BusHeader, now: number): 'ok' | 'stale' | 'replay' {
    if (Math.abs(now - h.ts) > this.windowMs) return 'stale';
    if (now >= this.nextSweep) this.sweep(now);
    const key = `${h.n}\0${h.i}`;
    const seen = this.last.get(key);
    if (seen && h.q <= seen.q) return 'replay';
    this.last.set(key, { q: h.q, ts: Math.max(h.ts, seen?.ts ?? 0) });
    return 'ok';
  }

  private sweep(now: number): void {
    this.nextSweep = now + this.windowMs;
    // Kept twice the window: a sender whose clock runs ahead may still send within it.
    for (const [key, v] of this.last) if (now - v.ts > 2 * this.windowMs) this.last.delete(key);
  }
}
