import type { IdentityMapping, ProjectRole } from '@gantry/contracts';
import type { MappingRow } from './mappings.repository.js';

/** The API shape of a rule (`group_name` is stored so; `group` is a reserved word in SQL). */
export function presentMapping(row: MappingRow): IdentityMapping {
  return {
    id: row.id,
    source: row.source,
    group: row.group_name,
    admin: row.admin === 1,
    project_id: row.project_id,
    role: row.role as ProjectRole | null,
    created: row.created,
  };
}
