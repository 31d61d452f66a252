import { describe, expect, it } from 'vitest';
import { fieldDiff, isSecretField, redact, secretsIn } from './audit-fields.js';

describe('audit fields', () => {
  it('knows secret fields by name, not the ids that point at keys', () => {
    for (const name of [
      'password',
      'login_password',
      'private_key',
      'passphrase',
      'secret',
      'auth_secret',
      'token',
      'client_secret',
      'vault_password',
    ]) {
      expect(isSecretField(name), name).toBe(true);
    }
    for (const name of ['id', 'ssh_key_id', 'token_id', 'become_key_id', 'name', 'vault_key_ids', 'secret_ids']) {
      expect(isSecretField(name), name).toBe(false);
    }
  });

  it('replaces secret values at any depth by "changed", keeping flags and empty values', () => {
    expect(
      redact({
        name: 'k',
        ssh: { login: 'u', private_key: '-----BEGIN' },
        secret: true,
        password: '',
        list: [{ token: 'abc' }],
      }),
    ).toEqual({
      name: 'k',
      ssh: { login: 'u', private_key: 'changed' },
      secret: true,
      password: '',
      list: [{ token: 'changed' }],
    });
  });

  it('keeps only the changed fields of an update, with secrets the input set as "changed"', () => {
    expect(
      fieldDiff({ name: 'a', tags: ['x'], admin: false }, { name: 'b', tags: ['x'], admin: false }, ['password']),
    ).toEqual({
      before: { name: 'a', password: 'changed' },
      after: { name: 'b', password: 'changed' },
    });
    expect(fieldDiff({ a: 1 }, { a: 1, b: 2 })).toEqual({ before: { b: null }, after: { b: 2 } });
    expect(fieldDiff(null, { name: 'n' }, ['token'])).toEqual({ before: null, after: { name: 'n', token: 'changed' } });
    expect(fieldDiff({ name: 'n' }, null)).toEqual({ before: { name: 'n' }, after: null });
  });

  it('names the secrets an input sets, as paths, and not the empty ones', () => {
    expect(
      secretsIn({
        name: 'k',
        login_password: { login: 'u', password: 'p' },
        ssh: { private_key: '', passphrase: null },
      }),
    ).toEqual(['login_password.password']);
    expect(secretsIn({ secrets: [{ name: 'A', secret: 'v' }], password: 'x' })).toEqual(['secrets', 'password']);
    expect(secretsIn({ secret: true })).toEqual([]);
  });
});
