import { z } from 'zod';
import { driftSchema } from './terraform-plan.js';
import { INCORRECT_BRANCH, isValidBranch } from './branches.js';
import { codedIssue } from './coded.js';
import { ErrorCodes } from './errors.js';
import {
  hasControlCharacters,
  multiLine,
  requiredIssue,
  requiredMessage,
  requiredName,
  typedFields,
} from './fields.js';

/**
 * `file`: a path in a project repository (at `git_branch`, or the repository's own branch), static
 * INI/YAML or a dynamic inventory script / plugin config that Ansible runs in the sandbox; `url`
 * (Gantry's own): `inventory` is an http(s) URL the server fetches (SSRF rules of fetched options).
 */
export const INVENTORY_TYPES = ['static', 'static-yaml', 'file', 'url', 'terraform-workspace', 'tofu-workspace'] as const;
export const inventoryTypeSchema = z.enum(INVENTORY_TYPES, requiredMessage('Type'));
export type InventoryType = z.infer<typeof inventoryTypeSchema>;

export const WORKSPACE_INVENTORY_TYPES: readonly InventoryType[] = ['terraform-workspace', 'tofu-workspace'];

/** A path inside a repository: relative and never climbing out with `..`. */
export function isSafeRepoPath(p: string): boolean {
  if (!p || p.startsWith('/') || p.startsWith('~') || p.startsWith('-') || hasControlCharacters(p)) return false;
  return !p.split(/[\\/]+/).some((seg) => seg === '..');
}

/**
 * A file inventory's path: one inside its repository, or an absolute path on the server (which the
 * server accepts only below a folder listed in GANTRY_ALLOWED_LOCAL_PATHS); never with `..`.
 */
export function isInventoryFilePath(p: string): boolean {
  return p.startsWith('/') ? isSafeRepoPath(p.replace(/^\/+/, '')) : isSafeRepoPath(p);
}

/** A URL inventory's address: http(s) only, no credentials in it, no control characters or spaces. */
export function isInventoryUrl(u: string): boolean {
  if (!u || u.length > 2048 || hasControlCharacters(u) || /\s/.test(u)) return false;
  let url: URL;
  try {
    url = new URL(u);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && !!url.hostname;
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
  /** Semaphore's name for the template that holds the inventory (a workspace's template), else null. */
  holder_id: z.number().int().nullable(),
  /** A `file` inventory's branch; null: the repository's own. */
  git_branch: z.string().nullable().optional(),
  /** `file` and `url`: when the inventory was last read (ISO 8601) and why the last read failed (null: it did not). */
  last_read_at: z.string().nullable().optional(),
  last_error: z.string().nullable().optional(),
  /** Terraform/OpenTofu workspaces: what the last drift check found. */
  drift: driftSchema.optional(),
});
export type Inventory = z.infer<typeof inventorySchema>;

/** An optional link: empty, 0 or null is none (`null` declared, so a PUT with `null` clears it). */
const optionalId = z
  .preprocess((v) => (v === '' || v === 0 || v === undefined ? null : v), z.coerce.number().int().positive().nullable())
  .nullable();

export const inventoryInputSchema = z
  .object({
    name: requiredName('Name'),
    type: inventoryTypeSchema,
    inventory: multiLine('Inventory', INVENTORY_MAX).trim().default(''),
    // Optional, as in Semaphore: an inventory without credentials connects with none.
    ssh_key_id: optionalId.default(null),
    become_key_id: optionalId.default(null),
    repository_id: optionalId.default(null),
    /** A repository `file` inventory's branch (empty or null: the repository's own). */
    git_branch: z.string().trim().max(255).nullish(),
  })
  .superRefine(
    (inv, ctx) => {
      if (inv.type === 'file') {
        if (!inv.inventory)
          ctx.addIssue({
            code: 'custom',
            path: ['inventory'],
            ...requiredIssue('Path'),
          });
        else if (!isInventoryFilePath(inv.inventory)) {
          ctx.addIssue({
            code: 'custom',
            path: ['inventory'],
            ...codedIssue('Path must stay inside the repository', ErrorCodes.pathOutsideRepository),
          });
        }
      }
      if (inv.type === 'file' && inv.git_branch && !isValidBranch(inv.git_branch))
        ctx.addIssue({
          code: 'custom',
          path: ['git_branch'],
          ...codedIssue(INCORRECT_BRANCH, ErrorCodes.incorrectBranch),
        });
      if (inv.type === 'url') {
        // An empty address is not a URL either: one message says what is wanted.
        if (!isInventoryUrl(inv.inventory))
          ctx.addIssue({
            code: 'custom',
            path: ['inventory'],
            ...codedIssue('The URL must be http(s), without credentials', ErrorCodes.inventoryUrlInvalid),
          });
      }
      if (WORKSPACE_INVENTORY_TYPES.includes(inv.type) && !inv.inventory) {
        ctx.addIssue({
          code: 'custom',
          path: ['inventory'],
          ...requiredIssue('Workspace name'),
        });
      }
    },
    // Also when other fields failed (a missing name): a form learns every problem at once. A type
    // that is not one of the known ones is its own problem; the path is checked for known types only.
    { when: typedFields('type', 'inventory', 'git_branch') },
  )
  // An absolute file path is read where it is, from no repository (and no branch).
  .transform((inv) =>
    inv.type === 'file' && !inv.inventory.startsWith('/') ? inv : { ...inv, repository_id: null, git_branch: null },
  );
export type InventoryInput = z.input<typeof inventoryInputSchema>;
