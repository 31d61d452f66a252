import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  backupEnvironmentSchema,
  backupIntegrationSchema,
  backupWorkflowSchema,
  backupInventorySchema,
  backupKeySchema,
  backupRepositorySchema,
  backupScheduleSchema,
  backupTemplateSchema,
  backupViewSchema,
  projectBackupSchema,
  type ProjectBackup,
  ErrorCodes,
} from '@gantry/contracts';
import type { z } from 'zod';
import { ValidationError } from '../../platform/errors.js';
import {
  GANTRY_MEMBER,
  GANTRY_MEMBER_LISTS,
  gantryMemberSchema,
  withGantryMember,
  type GantryMember,
} from './backup.combined.js';
import { checkRestoreSize, Pacer } from './backup.limits.js';
import {
  looksLikeSemaphoreBackup,
  semaphoreBackupSchema,
  semaphoreEnvironmentSchema,
  semaphoreIntegrationSchema,
  semaphoreInventorySchema,
  semaphoreKeySchema,
  semaphoreRepositorySchema,
  semaphoreScheduleSchema,
  semaphoreTemplateSchema,
  semaphoreViewSchema,
} from './semaphore-format.js';
import { fromSemaphore } from './semaphore-import.js';

/** "templates[0].name: Name is required": where the first issue is, and what it is. */
function firstIssue(error: z.ZodError, prefix: PropertyKey[] = []): string {
  const issue = error.issues[0];
  const where = [...prefix, ...(issue?.path ?? [])]
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`))
    .join('');
  return `${where ? `${where}: ` : ''}${issue?.message ?? 'unreadable document'}`;
}

/** The object lists of each format, validated an item at a time (see `validate`). */
const GANTRY_LISTS: Readonly<Record<string, z.ZodType>> = {
  keys: backupKeySchema,
  repositories: backupRepositorySchema,
  inventories: backupInventorySchema,
  environments: backupEnvironmentSchema,
  views: backupViewSchema,
  templates: backupTemplateSchema,
  schedules: backupScheduleSchema,
  integrations: backupIntegrationSchema,
  workflows: backupWorkflowSchema,
};
const SEMAPHORE_LISTS: Readonly<Record<string, z.ZodType>> = {
  keys: semaphoreKeySchema,
  repositories: semaphoreRepositorySchema,
  inventories: semaphoreInventorySchema,
  environments: semaphoreEnvironmentSchema,
  views: semaphoreViewSchema,
  templates: semaphoreTemplateSchema,
  schedules: semaphoreScheduleSchema,
  integrations: semaphoreIntegrationSchema,
};

type Validated<T> = { ok: true; data: T } | { ok: false; problem: string };

/**
 * `schema.safeParse(body)`, paced: the document is validated with its object lists emptied, then
 * each list an item at a time with the item's schema, the event loop running between items, so a
 * large backup does not hold the server for the whole validation. The same answer as one parse:
 * the output, or the first problem with its path.
 */
async function validate<S extends z.ZodType>(
  schema: S,
  lists: Readonly<Record<string, z.ZodType>>,
  body: unknown,
): Promise<Validated<z.output<S>>> {
  const doc =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  const pending: Array<[string, z.ZodType, unknown[]]> = [];
  const shell: Record<string, unknown> = { ...doc };
  for (const [section, item] of Object.entries(lists)) {
    const value = doc?.[section];
    if (!Array.isArray(value)) continue;
    pending.push([section, item, value]);
    shell[section] = [];
  }
  const first = schema.safeParse(doc ? shell : body);
  if (!first.success) return { ok: false, problem: firstIssue(first.error) };
  const data = first.data as Record<string, unknown>;
  const pacer = new Pacer();
  for (const [section, item, values] of pending) {
    const out: unknown[] = [];
    for (const [i, value] of values.entries()) {
      const parsed = item.safeParse(value);
      if (!parsed.success) return { ok: false, problem: firstIssue(parsed.error, [section, i]) };
      out.push(parsed.data);
      await pacer.tick();
    }
    data[section] = out;
  }
  return { ok: true, data: first.data };
}

/**
 * The backup document (API body or CLI file), or a ValidationError that says where it is wrong:
 * "Invalid backup: templates[0].name: Name is required".
 */
export async function parseBackup(body: unknown): Promise<ProjectBackup> {
  const parsed = await validate(projectBackupSchema, GANTRY_LISTS, body);
  if (parsed.ok) return parsed.data;
  throw new ValidationError(`Invalid backup: ${parsed.problem}`, {
    code: ErrorCodes.backupInvalid,
    problem: parsed.problem,
  });
}

/** A restore body as Gantry's document, plus what a Semaphore backup held that could not be mapped. */
export interface ParsedRestore {
  doc: ProjectBackup;
  /** Set for a Semaphore backup only (possibly empty). */
  unmapped?: string[];
}

/**
 * Gantry's backup as it is; Semaphore UI's (no `meta.format`) converted to Gantry's first, with
 * what a combined file's `gantry` member adds (see backup.combined.ts). A body over the size
 * limits (RESTORE_SECTION_MAX) is refused before anything else is looked at.
 */
export async function parseRestoreBody(body: unknown): Promise<ParsedRestore> {
  await checkRestoreSize(body);
  if (!looksLikeSemaphoreBackup(body)) return { doc: await parseBackup(body) };
  const parsed = await validate(semaphoreBackupSchema, SEMAPHORE_LISTS, body);
  if (!parsed.ok)
    throw new ValidationError(`Invalid Semaphore backup: ${parsed.problem}`, {
      code: ErrorCodes.semaphoreBackupInvalid,
      problem: parsed.problem,
    });
  const { backup, unmapped } = fromSemaphore(parsed.data);
  const member = await gantryMember((body as Record<string, unknown>)[GANTRY_MEMBER], unmapped);
  return { doc: await parseBackup(member ? withGantryMember(backup, member) : backup), unmapped };
}

/**
 * A combined file's `gantry` member, or null when there is none. One this server does not read
 * (another format or version) is skipped and noted: the Semaphore part still restores. One that
 * claims to be this server's but is malformed is the file's fault (400).
 */
async function gantryMember(value: unknown, notes: string[]): Promise<GantryMember | null> {
  if (value === undefined || value === null) return null;
  const head = value as { format?: unknown; version?: unknown };
  if (typeof value !== 'object' || Array.isArray(value) || head.format !== BACKUP_FORMAT) {
    notes.push(`The "${GANTRY_MEMBER}" member is not Gantry's backup data; ignored`);
    return null;
  }
  if (head.version !== BACKUP_VERSION) {
    notes.push(
      `The "${GANTRY_MEMBER}" member is of version ${String(head.version)} (this server reads version ${BACKUP_VERSION}); ignored`,
    );
    return null;
  }
  const parsed = await validate(gantryMemberSchema, GANTRY_MEMBER_LISTS, value);
  if (!parsed.ok)
    throw new ValidationError(`Invalid backup: ${GANTRY_MEMBER}.${parsed.problem}`, {
      code: ErrorCodes.backupInvalid,
      problem: `${GANTRY_MEMBER}.${parsed.problem}`,
    });
  return parsed.data;
}
