import { z } from 'zod';

export const referenceSchema = z.object({ id: z.number().int(), name: z.string() });

/** What still uses an object; a delete is refused while any list is non-empty. */
export const referencesSchema = z.object({
  templates: z.array(referenceSchema),
  inventories: z.array(referenceSchema),
  repositories: z.array(referenceSchema),
  schedules: z.array(referenceSchema),
  integrations: z.array(referenceSchema),
});
export type References = z.infer<typeof referencesSchema>;
export type ReferenceSection = keyof References;

export function hasReferences(refs: References): boolean {
  return Object.values(refs).some((list) => list.length > 0);
}

/** 'Can't delete the {object}': the server's 409 text and the references dialog's title. */
export function cannotDeleteMessage(object: string): string {
  return `Can't delete the ${object}`;
}
