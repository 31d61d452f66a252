import { z } from 'zod';
import { coded } from './coded.js';
import { ErrorCodes } from './errors.js';
import { requiredMessage, requiredString } from './fields.js';
import { secretTypeSchema } from './environments.js';
import {
  integrationAuthMethodSchema,
  integrationTaskParamsSchema,
  BODY_DATA_TYPES,
  MATCH_METHODS,
  MATCH_TYPES,
  VALUE_SOURCES,
  VARIABLE_TYPES,
} from './integrations.js';
import { inventoryTypeSchema } from './inventories.js';
import { keyTypeSchema } from './keys.js';
import { surveyVarSchema, templateTaskParamsSchema, templateTypeSchema } from './templates.js';
import { approvalPolicySchema } from './approvals.js';
import { WORKFLOW_JOINS, workflowEdgeSchema, workflowNodeSchema } from './workflows.js';
import { scheduleTypeSchema } from './terraform-plan.js';

/**
 * A project backup: the project's settings and resources, never a secret. Objects point at each
 * other by the backup's own ids (1, 2, ... per kind), not by any server's database ids, and not
 * by name (names need not be unique). Restoring creates a new project with empty keys.
 */
export const BACKUP_FORMAT = 'gantry-project-backup';
export const BACKUP_VERSION = 1;
/** The console's backup and clear-cache buttons wait this long before and after acting (spec 02 §9). */
export const MAINTENANCE_ACTION_DELAY_MS = 1000;
/** The restore call takes bodies up to this size (the API's default limit is 1 MB). */
export const RESTORE_BODY_LIMIT = 10 * 1024 * 1024;

const backupId = z.number().int().positive();
const ref = backupId.nullable().default(null);
const text = z.string();
const name = requiredString('Name');

export const backupMetaSchema = z.object({
  format: z.literal(BACKUP_FORMAT, coded('Not a Gantry project backup', ErrorCodes.backupNotGantry)),
  version: z.literal(
    BACKUP_VERSION,
    coded(
      `Unsupported backup version (this server reads version ${BACKUP_VERSION})`,
      ErrorCodes.backupVersionUnsupported,
      {
        version: BACKUP_VERSION,
      },
    ),
  ),
  exported: text.optional(),
  name: z.string(requiredMessage('Project name')).trim().min(1, requiredMessage('Project name')),
  type: text.default(''),
  alert: z.boolean().default(false),
  alert_chat: text.nullable().default(null),
  max_parallel_tasks: z.number().int().min(0).default(0),
});

export const backupKeySchema = z.object({
  id: backupId,
  name,
  type: keyTypeSchema,
  /** The ssh login is a user name, not a secret; the private key and passphrase stay behind. */
  ssh: z.object({ login: text }).optional(),
});

export const backupRepositorySchema = z.object({
  id: backupId,
  name,
  git_url: text,
  git_branch: text.default(''),
  ssh_key_id: backupId,
});

export const backupInventorySchema = z.object({
  id: backupId,
  name,
  type: inventoryTypeSchema,
  inventory: text.default(''),
  ssh_key_id: ref,
  become_key_id: ref,
  repository_id: ref,
  /** A repository file inventory's branch (null: the repository's own). */
  git_branch: text.nullable().default(null),
  /** A workspace's template (the one it is attached to); null: none, or a backup made before it was kept. */
  template_id: ref,
});

export const backupEnvironmentSchema = z.object({
  id: backupId,
  name,
  json: text.default('{}'),
  env: text.default('{}'),
  /** Names and types only: the values are not exported. */
  secrets: z.array(z.object({ name, type: secretTypeSchema })).default([]),
});

export const backupViewSchema = z.object({
  id: backupId,
  title: requiredString('Title'),
  position: z.number().int().default(0),
});

export const backupVaultSchema = z.object({
  name: text.nullable().default(null),
  type: z.enum(['password', 'script']),
  vault_key_id: ref,
  script: text.nullable().default(null),
});

export const backupTemplateSchema = z.object({
  id: backupId,
  name,
  description: text.default(''),
  type: templateTypeSchema.default(''),
  app: text,
  playbook: text.default(''),
  inventory_id: ref,
  repository_id: backupId,
  environment_id: backupId,
  /** Every variable group in merge order and every inventory in `-i` order (first: the ids above); empty: those alone. */
  environment_ids: z.array(backupId).default([]),
  inventory_ids: z.array(backupId).default([]),
  view_id: ref,
  git_branch: text.nullable().default(null),
  runner_tag: text.nullable().default(null),
  start_version: text.nullable().default(null),
  build_template_id: ref,
  autorun: z.boolean().default(false),
  arguments: text.nullable().default(null),
  allow_override_args_in_task: z.boolean().default(false),
  allow_override_branch_in_task: z.boolean().default(false),
  allow_extra_vars_in_task: z.boolean().default(false),
  suppress_success_alerts: z.boolean().default(false),
  survey_vars: z.array(surveyVarSchema).default([]),
  vaults: z.array(backupVaultSchema).default([]),
  task_params: templateTaskParamsSchema,
  approval_policy: approvalPolicySchema.nullable().default(null),
});

export const backupScheduleSchema = z.object({
  name,
  /** A template's schedule names its template; a workflow's (Gantry's format only) its workflow instead. */
  template_id: backupId.nullish(),
  workflow_id: backupId.nullish(),
  cron_format: text,
  repository_id: ref,
  /** As it was when exported; a restored schedule starts inactive. */
  active: z.boolean().default(false),
  /** Answers to the template's parameters (JSON object text under `environment`); a drift check's `refresh_only` and workspace. */
  task_params: z
    .object({ environment: z.string(), refresh_only: z.boolean().optional(), inventory_id: backupId.optional() })
    .nullable()
    .default(null),
  /** '' runs the template; 'drift_check' plans only and records drift (absent in older backups: ''). */
  type: scheduleTypeSchema.default(''),
});

export const backupMatcherSchema = z.object({
  name,
  match_type: z.enum(MATCH_TYPES),
  body_data_type: z.enum(BODY_DATA_TYPES).nullable().default(null),
  key: text,
  method: z.enum(MATCH_METHODS),
  value: text,
});

export const backupExtractValueSchema = z.object({
  name,
  value_source: z.enum(VALUE_SOURCES),
  body_data_type: z.enum(BODY_DATA_TYPES).nullable().default(null),
  key: text,
  variable_type: z.enum(VARIABLE_TYPES),
  variable: text,
});

/** Alias URLs are not exported: a restored integration gets new ones when someone adds them. */
export const backupIntegrationSchema = z.object({
  name,
  /** A template's integration names its template; a workflow's (Gantry's format only) its workflow instead. */
  template_id: backupId.nullish(),
  workflow_id: backupId.nullish(),
  auth_method: integrationAuthMethodSchema.default('none'),
  auth_header: text.nullable().default(null),
  auth_secret_id: ref,
  searchable: z.boolean().default(false),
  task_params: integrationTaskParamsSchema,
  matchers: z.array(backupMatcherSchema).default([]),
  extract_values: z.array(backupExtractValueSchema).default([]),
});

/**
 * A workflow (Gantry's format only): its graph, the template, nested workflow, inventory and
 * variable group of each node numbered as the backup's own objects; approvers by role and group
 * only (a backup carries no users).
 */
export const backupWorkflowSchema = z.object({
  id: backupId,
  name,
  description: text.default(''),
  nodes: z.array(workflowNodeSchema),
  edges: z.array(workflowEdgeSchema).default([]),
  joins: z.record(z.string(), z.enum(WORKFLOW_JOINS)).default({}),
});

/** The whole document: what GET /project/{id}/backup answers and POST /projects/restore takes. */
export const projectBackupSchema = z.object({
  meta: backupMetaSchema,
  keys: z.array(backupKeySchema).default([]),
  repositories: z.array(backupRepositorySchema).default([]),
  inventories: z.array(backupInventorySchema).default([]),
  environments: z.array(backupEnvironmentSchema).default([]),
  views: z.array(backupViewSchema).default([]),
  templates: z.array(backupTemplateSchema).default([]),
  schedules: z.array(backupScheduleSchema).default([]),
  integrations: z.array(backupIntegrationSchema).default([]),
  workflows: z.array(backupWorkflowSchema).default([]),
});
export type ProjectBackup = z.output<typeof projectBackupSchema>;
export type ProjectBackupInput = z.input<typeof projectBackupSchema>;

/** What a restore answers (spec: restore result with projectName and emptyKeys). */
export const restoreResultSchema = z.object({
  id: z.number().int(),
  projectName: z.string(),
  /** Keys restored without their secret: they must be filled in before tasks use them. */
  emptyKeys: z.number().int(),
  /**
   * Every secret that came back empty (a backup never holds secrets): each key of a type with a
   * secret, and each secret of a variable group. A task run with one still empty says so in its log.
   */
  emptySecrets: z
    .array(
      z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('key'), name: z.string() }),
        z.object({ kind: z.literal('secret'), group: z.string(), name: z.string() }),
      ]),
    )
    .optional(),
  /**
   * What the backup held that could not be carried over, one line each: a reference naming
   * nothing restored or of the wrong kind (left out), an object Gantry's rules refuse (not
   * restored), a name Gantry's rules refuse, a Semaphore section Gantry has no counterpart for.
   * Empty when everything was restored.
   */
  unmapped: z.array(z.string()).optional(),
});
export type RestoreResult = z.infer<typeof restoreResultSchema>;

/**
 * `GET /project/{id}/backup?format=`: `combined` (the default, what Semaphore UI's console asks
 * for): Semaphore UI's format, which both products restore, with Gantry's extra data in a
 * top-level `gantry` member that Semaphore ignores; `gantry`: Gantry's own document (what Gantry's
 * console asks for, and older clients); `semaphore`: Semaphore UI's format alone.
 */
export const BACKUP_EXPORT_FORMATS = ['combined', 'gantry', 'semaphore'] as const;
export type BackupExportFormat = (typeof BACKUP_EXPORT_FORMATS)[number];
export const backupExportQuerySchema = z.object({
  format: z
    .enum(
      BACKUP_EXPORT_FORMATS,
      coded('format must be combined, gantry or semaphore', ErrorCodes.mustBeOneOf, {
        name: 'format',
        values: BACKUP_EXPORT_FORMATS.join(', '),
      }),
    )
    .default('combined'),
});
