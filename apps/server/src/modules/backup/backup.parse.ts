import { projectBackupSchema, type ProjectBackup } from '@gantry/contracts';
import type { z } from 'zod';
import { ValidationError } from '../../platform/errors.js';
import { looksLikeSemaphoreBackup, semaphoreBackupSchema } from './semaphore-format.js';
import { fromSemaphore } from './semaphore-import.js';

/** "templates[0].name: Name is required": where the first issue is, and what it is. */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const where = (issue?.path ?? [])
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`))
    .join('');
  return `${where ? `${where}: ` : ''}${issue?.message ?? 'unreadable document'}`;
}

/**
 * The backup document (API body or CLI file), or a ValidationError that says where it is wrong:
 * "Invalid backup: templates[0].name: Name is required".
 */
export function parseBackup(body: unknown): ProjectBackup {
  const parsed = projectBackupSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw new ValidationError(`Invalid backup: ${firstIssue(parsed.error)}`);
}

/** A restore body as Gantry's document, plus what a Semaphore backup held that could not be mapped. */
export interface ParsedRestore {
  doc: ProjectBackup;
  /** Set for a Semaphore backup only (possibly empty). */
  unmapped?: string[];
}

/** Gantry's backup as it is; Semaphore UI's (no `meta.format`) converted to Gantry's first. */
export function parseRestoreBody(body: unknown): ParsedRestore {
  if (!looksLikeSemaphoreBackup(body)) return { doc: parseBackup(body) };
  const parsed = semaphoreBackupSchema.safeParse(body);
  if (!parsed.success) throw new ValidationError(`Invalid Semaphore backup: ${firstIssue(parsed.error)}`);
  const { backup, unmapped } = fromSemaphore(parsed.data);
  return { doc: parseBackup(backup), unmapped };
}
