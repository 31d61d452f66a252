import type { Inventory, InventoryType } from '@gantry/contracts';
import { UNKNOWN_DRIFT } from '@gantry/contracts';
import type { InventoryRow } from './inventories.repository.js';

/** A Terraform/OpenTofu workspace answers its last drift check's finding (`unknown` when none). */
export function presentInventory(row: InventoryRow & { drift?: Inventory['drift'] }): Inventory {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    type: row.type as InventoryType,
    inventory: row.inventory,
    ssh_key_id: row.ssh_key_id,
    become_key_id: row.become_key_id,
    repository_id: row.repository_id,
    template_id: row.template_id,
    holder_id: row.template_id,
    git_branch: row.git_branch ?? null,
    last_read_at: row.last_read_at ?? null,
    last_error: row.last_error ?? null,
    ...(row.type.endsWith('-workspace') ? { drift: row.drift ?? UNKNOWN_DRIFT } : {}),
  };
}
