import { createHash, timingSafeEqual } from 'node:crypto';

export interface BasicCredentials {
  username: string;
  password: string;
}

/** The credentials of an `Authorization: Basic …` header, or null for any other header. */
export function parseBasicAuth(header: string | undefined): BasicCredentials | null {
  const m = header?.match(/^basic\s+([A-Za-z0-9+/=]+)\s*$/i);
  if (!m) return null;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return null;
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** Compares two texts in time that depends on neither (both are hashed to the same length first). */
function same(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** What is compared when there is nothing to compare with, so a miss costs what a check costs. */
const NOBODY: BasicCredentials = { username: '\u0000nobody', password: '\u0000nothing' };

/**
 * Whether `given` are the `expected` credentials. Both parts are always compared, in constant
 * time, also when there is no alias (`expected` null) or no header: the answer's timing says
 * nothing about which part was wrong or whether the alias exists.
 */
export function credentialsMatch(given: BasicCredentials | null, expected: BasicCredentials | null): boolean {
  const g = given ?? NOBODY;
  const e = expected ?? NOBODY;
  const user = same(g.username, e.username);
  const pass = same(g.password, e.password);
  return given !== null && expected !== null && user && pass;
}
