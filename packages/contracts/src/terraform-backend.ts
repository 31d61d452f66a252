import { z } from 'zod';
import { requiredMessage } from './fields.js';

/**
 * Gantry's Terraform/OpenTofu HTTP state backend: aliases (backend addresses bound to one
 * workspace and one login/password key), the workspace switch that makes its tasks use the
 * backend, the lock information terraform sends, and what a state says about its resources.
 */

/** Where the backend answers: `{GANTRY_WEB_HOST or the request's origin}/api/terraform/{alias}`. */
export const TERRAFORM_BACKEND_PATH = '/api/terraform';

/** An alias as the API shows it; the password stays in the key (never in an answer). */
export const terraformAliasSchema = z.object({
  /** The random alias itself: the last segment of the backend address. */
  id: z.string(),
  url: z.string(),
  /** Null once its key was deleted: the alias lets no one in until it is given another key. */
  auth_key_id: z.number().int().nullable(),
  project_id: z.number().int(),
  inventory_id: z.number().int(),
  created: z.string(),
});
export type TerraformAlias = z.infer<typeof terraformAliasSchema>;

/** The "alias edit" dialog: a login/password key whose login and password terraform sends. */
export const terraformAliasInputSchema = z.object({
  auth_key_id: z.coerce
    .number(requiredMessage('Auth key'))
    .int(requiredMessage('Auth key'))
    .positive(requiredMessage('Auth key')),
});
export type TerraformAliasInput = z.input<typeof terraformAliasInputSchema>;

/** Whether a workspace's tasks keep their state in Gantry's HTTP backend. */
export const terraformBackendSettingsSchema = z.object({ enabled: z.boolean() });
export type TerraformBackendSettings = z.infer<typeof terraformBackendSettingsSchema>;

/** Longest lock information kept (terraform sends well under 1 KiB). */
export const LOCK_INFO_MAX = 16 * 1024;

/** The lock information terraform sends with LOCK and answers with 423 (its field names). */
export const terraformLockInfoSchema = z
  .object({
    ID: z.string(requiredMessage('Lock ID')).min(1, requiredMessage('Lock ID')).max(255),
    Operation: z.string().optional(),
    Info: z.string().optional(),
    Who: z.string().optional(),
    Version: z.string().optional(),
    Created: z.string().optional(),
    Path: z.string().optional(),
  })
  .loose();
export type TerraformLockInfo = z.infer<typeof terraformLockInfoSchema>;

/** What a Terraform/OpenTofu state says about itself; null for text that is not a state. */
export interface StateSummary {
  serial: number;
  lineage: string;
  /** Instance addresses as `terraform state list` prints them, sorted. */
  addresses: string[];
}

type Loose = Record<string, unknown>;
const isObject = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `module.a.aws_instance.web["x"]`, `data.x.y[0]`: one address per resource instance. */
function instanceAddresses(r: Loose): string[] {
  const base = `${typeof r.module === 'string' && r.module ? `${r.module}.` : ''}${r.mode === 'data' ? 'data.' : ''}${String(r.type)}.${String(r.name)}`;
  const instances = Array.isArray(r.instances) ? r.instances : [];
  if (instances.length === 0) return [];
  return instances.map((i) => {
    const key = isObject(i) ? i.index_key : undefined;
    if (typeof key === 'number') return `${base}[${key}]`;
    if (typeof key === 'string') return `${base}[${JSON.stringify(key)}]`;
    return base;
  });
}

/** Serial, lineage and resource addresses of a state's JSON text (or parsed value). */
export function summarizeState(state: string | unknown): StateSummary | null {
  let v: unknown = state;
  if (typeof state === 'string') {
    try {
      v = JSON.parse(state);
    } catch {
      return null;
    }
  }
  if (!isObject(v) || typeof v.serial !== 'number' || typeof v.lineage !== 'string') return null;
  const resources = Array.isArray(v.resources) ? v.resources.filter(isObject) : [];
  return {
    serial: v.serial,
    lineage: v.lineage,
    addresses: resources.flatMap(instanceAddresses).sort(),
  };
}

/** What changed between two lists of resource addresses. */
export function diffAddresses(from: string[], to: string[]): { added: string[]; removed: string[]; kept: string[] } {
  const before = new Set(from);
  const after = new Set(to);
  return {
    added: to.filter((a) => !before.has(a)),
    removed: from.filter((a) => !after.has(a)),
    kept: to.filter((a) => before.has(a)),
  };
}

/**
 * A ready-to-paste `backend "http"` block for an alias. The password is not in it: terraform
 * reads it from TF_HTTP_PASSWORD (it is the alias key's password, shown nowhere).
 */
export function httpBackendBlock(url: string, username: string): string {
  const q = (s: string) => JSON.stringify(s);
  return [
    'terraform {',
    '  backend "http" {',
    `    address        = ${q(url)}`,
    `    lock_address   = ${q(url)}`,
    `    unlock_address = ${q(url)}`,
    '    lock_method    = "LOCK"',
    '    unlock_method  = "UNLOCK"',
    `    username       = ${q(username)}`,
    "    # password: export TF_HTTP_PASSWORD=<the key's password>",
    '  }',
    '}',
    '',
  ].join('\n');
}
