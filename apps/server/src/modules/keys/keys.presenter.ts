import type { AccessKey, KeyType } from '@gantry/contracts';
import type { KeyRow } from './keys.repository.js';

/** The API shape of a key: the sealed material is dropped, only `empty` tells whether it exists. */
export function presentKey(row: KeyRow): AccessKey {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    type: row.type as KeyType,
    empty: row.type !== 'none' && !row.secret,
  };
}
