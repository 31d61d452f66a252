import { projectBackupSchema, type ProjectBackup } from '@gantry/contracts';
import { ValidationError } from '../../platform/errors.js';

/**
 * The backup document (API body or CLI file), or a ValidationError that says where it is wrong:
 * "Invalid backup: templates[0].name: Name is required".
 */
export function parseBackup(body: unknown): ProjectBackup {
  const parsed = projectBackupSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = (issue?.path ?? [])
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`))
    .join('');
  throw new ValidationError(`Invalid backup: ${where ? `${where}: ` : ''}${issue?.message ?? 'unreadable document'}`);
}
