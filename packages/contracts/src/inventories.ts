import { z } from 'zod';
import { hasControlCharacters, multiLine, requiredString } from './fields.js';

export const INVENTORY_TYPES = ['static', 'static-yaml', 'file', 'terraform-workspace', 'tofu-workspace'] as const;
export const inventoryTypeSchema = z.enum(INVENTORY_TYPES, { error: 'Type is required' });
export type InventoryType = z.infer<typeof inventoryTypeSchema>;

export const WORKSPACE_INVENTORY_TYPES: readonly InventoryType[] = ['terraform-workspace', 'tofu-workspace'];

/** A path inside a repository: relative and never climbing out with `..`. */
export function isSafeRepoPath(p: string): boolean {
  if (!p || p.startsWith('/') || p.startsWith('~') || p.startsWith('-') || hasControlCharacters(p)) return false;
  return !p.split(/[\\/]+/).some((seg) => seg === '..');
}

/** Longest inventory text (a static inventory of many hosts fits easily). */
const INVENTORY_MAX = 1024 * 1024;

export const inventorySchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  name: z.string(),
  type: inventoryTypeSchema,
  inventory: z.string(),
  ssh_key_id: z.number().int().nullable(),
  become_key_id: z.number().int().nullable(),
  repository_id: z.number().int().nullable(),
  template_id: z.number().int().nullable(),
});
export type Inventory = z.infer<typeof inventorySchema>;

const optionalId = z.preprocess(
  (v) => (v === '' || v === 0 || v === undefined ? null : v),
  z.coerce.number().int().positive().nullable(),
);

export const inventoryInputSchema = z
  .object({
    name: requiredString('Name'),
    type: inventoryTypeSchema,
    inventory: multiLine('Inventory', INVENTORY_MAX).trim().default(''),
    ssh_key_id: z.coerce
      .number({ error: 'User credentials are required' })
      .int({ error: 'User credentials are required' })
      .positive({ error: 'User credentials are required' }),
    become_key_id: optionalId.default(null),
    repository_id: optionalId.default(null),
  })
  .superRefine((inv, ctx) => {
    if (inv.type === 'file') {
      if (!inv.inventory) ctx.addIssue({ code: 'custom', path: ['inventory'], message: 'Path is required' });
      else if (!isSafeRepoPath(inv.inventory)) {
        ctx.addIssue({ code: 'custom', path: ['inventory'], message: 'Path must stay inside the repository' });
      }
    }
    if (WORKSPACE_INVENTORY_TYPES.includes(inv.type) && !inv.inventory) {
      ctx.addIssue({ code: 'custom', path: ['inventory'], message: 'Workspace name is required' });
    }
  })
  .transform((inv) => (inv.type === 'file' ? inv : { ...inv, repository_id: null }));
export type InventoryInput = z.input<typeof inventoryInputSchema>;
