import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The webhook signature (`X-Gantry-Signature`): `t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<body>">`. The time is signed with the body so a captured request cannot be replayed
 * later than the receiver's tolerance.
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${hmac(secret, unixSeconds, body)}`;
}

/**
 * Whether `header` signs `body` with `secret` within `toleranceSec` of `nowSec`: what a receiver
 * does (the README shows the same steps). Any `v1` entry may match (a receiver rotating secrets).
 */
export function verifySignature(
  secret: string,
  header: string,
  body: string,
  nowSec: number,
  toleranceSec = 300,
): boolean {
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  if (!t || !/^\d+$/.test(t)) return false;
  const time = Number(t);
  if (Math.abs(nowSec - time) > toleranceSec) return false;
  const expected = Buffer.from(hmac(secret, time, body), 'hex');
  return parts.some(([k, v]) => {
    if (k !== 'v1' || !v || !/^[0-9a-f]{64}$/.test(v)) return false;
    return timingSafeEqual(Buffer.from(v, 'hex'), expected);
  });
}

function hmac(secret: string, time: number, body: string): string {
  return createHmac('sha256', secret).update(`${time}.${body}`).digest('hex');
}
