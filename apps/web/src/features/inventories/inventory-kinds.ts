import type { InventoryType } from '@gantry/contracts';

/**
 * What the New inventory menu offers (spec 02 §9: of the apps, only Ansible has inventories), and
 * the types each kind may take: an Ansible inventory is static INI, static YAML, a file in a
 * repository (at a branch) or a URL the server fetches; a Terraform or OpenTofu workspace has one type of its own.
 */
export const INVENTORY_KINDS = {
  ansible: ['static', 'static-yaml', 'file', 'url'],
  terraform: ['terraform-workspace'],
  tofu: ['tofu-workspace'],
} as const satisfies Record<string, readonly InventoryType[]>;
export type InventoryKind = keyof typeof INVENTORY_KINDS;

/** The kind an existing inventory belongs to. */
export function kindOf(type: InventoryType): InventoryKind {
  if (type === 'terraform-workspace') return 'terraform';
  if (type === 'tofu-workspace') return 'tofu';
  return 'ansible';
}
