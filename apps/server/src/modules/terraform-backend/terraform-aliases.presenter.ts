import { TERRAFORM_BACKEND_PATH, type TerraformAlias } from '@gantry/contracts';
import type { AliasRow } from './terraform-backend.repository.js';

/** An alias as the API shows it; `base` is GANTRY_WEB_HOST or the request's origin. */
export function presentAlias(row: AliasRow, base: string): TerraformAlias {
  return {
    id: row.id,
    url: `${base}${TERRAFORM_BACKEND_PATH}/${row.id}`,
    auth_key_id: row.auth_key_id,
    project_id: row.project_id,
    inventory_id: row.inventory_id,
    created: row.created,
  };
}

/** Enough of an alias to tell it apart in the audit trail, not enough to use it as an address. */
export function aliasHint(id: string): string {
  return `${id.slice(0, 6)}…`;
}

/** An alias as its audit entries show it: the workspace, the key and the alias's hint. */
export function auditedAlias(row: AliasRow): Record<string, unknown> {
  return { alias: aliasHint(row.id), inventory_id: row.inventory_id, auth_key_id: row.auth_key_id };
}
