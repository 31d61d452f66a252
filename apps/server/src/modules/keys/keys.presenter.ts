import type { AccessKey, KeyType } from '@gantry/contracts';
import type { KeyRow } from './keys.repository.js';

/**
 * A key row with the login read out of its sealed material (blank when there is none) and whether
 * it lacks its secret (a key restored from a backup).
 */
export type KeyView = KeyRow & { login?: string; empty?: boolean };

/**
 * The API shape of a key: the sealed material is dropped, only `empty` (sent only when true, as
 * Semaphore's `omitempty` does) tells whether it exists.
 * The secret fields Semaphore clients expect are present and blank; the login (not a secret)
 * appears only in the object of the key's own type.
 */
export function presentKey(row: KeyView): AccessKey {
  const type = row.type as KeyType;
  const login = row.login ?? '';
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    type,
    ...((row.empty ?? (row.type !== 'none' && !row.secret)) ? { empty: true as const } : {}),
    string: '',
    login_password: { login: type === 'login_password' ? login : '', password: '' },
    ssh: { login: type === 'ssh' ? login : '', passphrase: '', private_key: '' },
    override_secret: false,
  };
}
