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
