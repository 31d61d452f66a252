import { z } from 'zod';

/**
 * Semaphore UI's project backup, as its `GET /project/{id}/backup` writes it: objects refer to
 * each other by name (`ssh_key`, `inventory`, `template`...), numeric ids of the source server may
 * be present and mean nothing here. Read leniently: Semaphore writes `null` for empty values and
 * older versions differ (a view's `name` instead of `title`, `survey_vars` as JSON text, a single
 * `vault_key`, one `cron` per template). Secrets are never read, whatever the file holds.
 */

const text = z
  .string()
  .nullish()
  .transform((v) => v ?? null);
const flag = z
  .boolean()
  .nullish()
  .transform((v) => v ?? false);
const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((v) => v ?? []);
const name = z
  .string()
  .nullish()
  .transform((v) => v ?? '');
const record = z
  .record(z.string(), z.unknown())
  .nullish()
  .transform((v) => v ?? {});

export const semaphoreKeySchema = z.object({
  name,
  type: z
    .string()
    .nullish()
    .transform((v) => v ?? 'none'),
});

export const semaphoreRepositorySchema = z.object({
  name,
  git_url: name,
  git_branch: name,
  ssh_key: text,
});

export const semaphoreInventorySchema = z.object({
  name,
  inventory: name,
  type: name,
  ssh_key: text,
  become_key: text,
  /** Not in Semaphore's format (it carries the source server's repository_id): Gantry's export adds it. */
  repository: text,
  repository_id: z.number().nullish(),
  /** Not in Semaphore's format: Gantry's export adds a repository file inventory's branch. */
  git_branch: text,
});

export const semaphoreEnvironmentSchema = z.object({
  name,
  json: text,
  env: text,
  password: text,
  secrets: list(z.object({ name, type: z.string().nullish() })),
});

export const semaphoreViewSchema = z.object({
  title: text,
  /** Versions before 2.9 wrote `name`. */
  name: text,
  position: z.number().int().nullish(),
});

export const semaphoreVaultSchema = z.object({
  name: text,
  type: z
    .string()
    .nullish()
    .transform((v) => v || 'password'),
  vault_key: text,
  script: text,
});

export const semaphoreTemplateSchema = z.object({
  name,
  description: text,
  type: name,
  app: name,
  playbook: name,
  arguments: text,
  inventory: text,
  repository: name,
  environment: text,
  /** Newer versions list several variable groups. */
  environments: list(z.string()),
  /** Not in Semaphore's format: Gantry's export lists every inventory (`-i` order) beside `inventory`. */
  inventories: list(z.string()),
  view: text,
  build_template: text,
  start_version: text,
  git_branch: text,
  runner_tag: text,
  autorun: flag,
  allow_override_args_in_task: flag,
  allow_override_branch_in_task: flag,
  /** Not in Semaphore's format: Gantry's export adds it. */
  allow_extra_vars_in_task: z.boolean().nullish(),
  allow_parallel_tasks: flag,
  suppress_success_alerts: flag,
  suppress_error_alerts: flag,
  working_directory: text,
  survey_vars: z.union([z.string(), z.array(z.unknown())]).nullish(),
  vaults: list(semaphoreVaultSchema),
  /** Before template vaults: one vault password key. */
  vault_key: text,
  cron: text,
  task_params: record,
});

export const semaphoreScheduleSchema = z.object({
  name,
  cron_format: name,
  active: flag,
  /** "" (cron) or, in newer versions, "run_at" (once, at `run_at`). */
  type: text,
  template: name,
  checkable_repository: text,
  repository_id: z.number().nullish(),
  /** Newer versions: the run's options (an inventory by name, a limit...); Gantry's schedules have none. */
  task_params: record,
});

export const semaphoreMatcherSchema = z.object({
  name,
  match_type: name,
  method: name,
  body_data_type: text,
  key: name,
  value: name,
});

export const semaphoreExtractValueSchema = z.object({
  name,
  value_source: name,
  body_data_type: text,
  key: name,
  variable: name,
  variable_type: text,
});

export const semaphoreIntegrationSchema = z.object({
  name,
  template: name,
  auth_method: text,
  auth_header: text,
  auth_secret: text,
  searchable: flag,
  task_params: record,
  matchers: list(semaphoreMatcherSchema),
  extract_values: list(semaphoreExtractValueSchema),
  aliases: list(z.string()),
});

/** Sections of newer Semaphore versions that Gantry has no counterpart for: counted, not restored. */
export const SEMAPHORE_UNSUPPORTED_SECTIONS = ['proxies', 'secret_storages', 'roles', 'runners', 'workflows'] as const;

export const semaphoreBackupSchema = z.object({
  meta: z.object({
    name,
    alert: flag,
    alert_chat: text,
    max_parallel_tasks: z
      .number()
      .int()
      .nullish()
      .transform((v) => v ?? 0),
    type: text,
  }),
  keys: list(semaphoreKeySchema),
  repositories: list(semaphoreRepositorySchema),
  inventories: list(semaphoreInventorySchema),
  environments: list(semaphoreEnvironmentSchema),
  views: list(semaphoreViewSchema),
  templates: list(semaphoreTemplateSchema),
  schedules: list(semaphoreScheduleSchema),
  integrations: list(semaphoreIntegrationSchema),
  integration_aliases: list(z.string()),
  proxies: list(z.unknown()),
  secret_storages: list(z.unknown()),
  roles: list(z.unknown()),
  runners: list(z.unknown()),
  workflows: list(z.unknown()),
});
export type SemaphoreBackup = z.output<typeof semaphoreBackupSchema>;

const SECTIONS = ['templates', 'repositories', 'keys', 'inventories', 'environments', 'views'];

/**
 * Whether a restore body is Semaphore's rather than Gantry's: a `meta` object without Gantry's
 * `meta.format` marker, next to at least one of the lists both formats share (whatever it holds:
 * a malformed list is then reported against Semaphore's format).
 */
export function looksLikeSemaphoreBackup(body: unknown): boolean {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const doc = body as Record<string, unknown>;
  const meta = doc.meta;
  if (!meta || typeof meta !== 'object' || Array.isArray(meta) || 'format' in meta) return false;
  return SECTIONS.some((s) => s in doc);
}
