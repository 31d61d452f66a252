import { AUDIT_SECRET_CHANGED } from '@gantry/contracts';

/** Field names whose values are secrets: key material, passwords, tokens, variable-group and integration secrets, OIDC/LDAP secrets. */
const SECRET_NAME =
  /(password|passphrase|secret|token|private_key|key_material|ssh_key|api_key|credential|hmac|bind_pw|vault)/i;

/** Whether a field of this name holds a secret (an `_id` naming another object never does). */
export function isSecretField(name: string): boolean {
  return SECRET_NAME.test(name) && !/_ids?$/.test(name) && name !== 'id';
}

type Fields = Record<string, unknown>;

/**
 * The same value with every secret field, at any depth, replaced by "changed" (a flag such as
 * `secret: true` and an empty value are kept: they say nothing of the secret).
 */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== 'object') return value;
  const out: Fields = {};
  for (const [k, v] of Object.entries(value as Fields)) {
    out[k] =
      isSecretField(k) && v !== null && v !== '' && typeof v !== 'boolean' && v !== undefined
        ? AUDIT_SECRET_CHANGED
        : redact(v);
  }
  return out;
}

/**
 * The changed fields only, secrets redacted: a create has no `before`, a delete no `after`, an
 * update both with the fields whose value differs. `secretsChanged` names secret fields that
 * changed though no presented value shows it (a new password, new key material): they appear
 * in both as "changed".
 */
export function fieldDiff(
  before: Fields | null,
  after: Fields | null,
  secretsChanged: readonly string[] = [],
): { before: Fields | null; after: Fields | null } {
  const b = before ? (redact(before) as Fields) : null;
  const a = after ? (redact(after) as Fields) : null;
  if (b && a) {
    const outB: Fields = {};
    const outA: Fields = {};
    for (const k of new Set([...Object.keys(b), ...Object.keys(a)])) {
      if (JSON.stringify(b[k]) === JSON.stringify(a[k])) continue;
      outB[k] = b[k] ?? null;
      outA[k] = a[k] ?? null;
    }
    for (const k of secretsChanged) {
      outB[k] = AUDIT_SECRET_CHANGED;
      outA[k] = AUDIT_SECRET_CHANGED;
    }
    return { before: outB, after: outA };
  }
  if (a) for (const k of secretsChanged) a[k] = AUDIT_SECRET_CHANGED;
  return { before: b, after: a };
}

/**
 * Secret fields the input sets to a non-empty value (what a change sets that no answer shows),
 * as paths: `password`, `ssh.private_key`; inside a list, the list's name (`secrets`).
 */
export function secretsIn(input: unknown, prefix = ''): string[] {
  if (input === null || typeof input !== 'object') return [];
  const out = new Set<string>();
  for (const [k, v] of Object.entries(input as Fields)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (
      isSecretField(k) &&
      v !== null &&
      v !== undefined &&
      v !== '' &&
      typeof v !== 'boolean' &&
      typeof v !== 'object'
    )
      out.add(path);
    else if (Array.isArray(v)) {
      if (v.some((item) => secretsIn(item).length > 0)) out.add(path);
    } else if (v !== null && typeof v === 'object') secretsIn(v, path).forEach((p) => out.add(p));
  }
  return [...out];
}
