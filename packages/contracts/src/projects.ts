import { z } from 'zod';
import { nonNegativeIntegerOrZero, requiredName, singleLine } from './fields.js';
import { projectRoleSchema } from './permissions.js';

export const projectSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  created: z.string(),
  type: z.string(),
  alert: z.boolean(),
  alert_chat: z.string().nullable(),
  max_parallel_tasks: z.number().int(),
  /**
   * Whether `gantry apply` owns the project's objects: the console shows them read-only with a
   * note, since a hand edit would be undone by the next apply.
   */
  managed_by_code: z.boolean(),
  /** The caller's role in the project; null for an admin who is not a member. */
  role: projectRoleSchema.nullable(),
});
export type Project = z.infer<typeof projectSchema>;

const projectFields = {
  name: requiredName('Project name'),
  alert: z.boolean().default(false),
  alert_chat: singleLine('Alert chat')
    .nullish()
    .transform((v) => (v ? v : null)),
  max_parallel_tasks: nonNegativeIntegerOrZero(),
};

export const projectCreateSchema = z.object({
  ...projectFields,
  type: singleLine('Type').default(''),
  demo: z.boolean().default(false),
});
export type ProjectCreate = z.input<typeof projectCreateSchema>;

export const projectUpdateSchema = z.object({
  ...projectFields,
  // Optional: Semaphore's clients do not know it, and one that leaves it out keeps the stored value.
  managed_by_code: z.boolean().optional(),
});
export type ProjectUpdate = z.input<typeof projectUpdateSchema>;

/** Project names give the switcher its initials: first letters of two words, else first two letters. */
export function projectInitials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length >= 2) return (words[0]!.charAt(0) + words[1]!.charAt(0)).toUpperCase();
  return (words[0] ?? '').slice(0, 2).toUpperCase();
}
