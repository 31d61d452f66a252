import { BACKUP_FORMAT, BACKUP_VERSION, type ProjectBackup, type ProjectBackupInput } from '@gantry/contracts';
import { z } from 'zod';
import { toSemaphore, type SemaphoreExport } from './semaphore-export.js';

/**
 * The combined backup: Semaphore UI's format, which both products restore, plus one top-level
 * member, `gantry`, with what Semaphore's format has no place for. Semaphore reads only the
 * members it knows (its restore walks its own struct's fields over the parsed JSON), so it
 * ignores this one; Gantry's restore reads it back, so nothing Gantry's own format keeps is lost
 * but secrets. The Semaphore part stays the truth: the member only adds to objects it names.
 *
 * What it holds, per kind, for the objects that need it (each named as in the Semaphore part,
 * a view by its title): the name the object has in Gantry when the Semaphore part had to make
 * it unique (`gantry_name`), and an ssh key's login (`ssh.login`, as in Gantry's own format).
 */
export const GANTRY_MEMBER = 'gantry';

const entrySchema = z.object({
  /** The object's name (a view's title) in the Semaphore part. */
  name: z.string(),
  /** Its name in Gantry, where the Semaphore part's differs (" (2)" added to a repeated name). */
  gantry_name: z.string().optional(),
});
const keyEntrySchema = entrySchema.extend({ ssh: z.object({ login: z.string() }).optional() });

export const gantryMemberSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(BACKUP_VERSION),
  exported: z.string().optional(),
  keys: z.array(keyEntrySchema).default([]),
  repositories: z.array(entrySchema).default([]),
  inventories: z.array(entrySchema).default([]),
  environments: z.array(entrySchema).default([]),
  views: z.array(entrySchema).default([]),
  templates: z.array(entrySchema).default([]),
});
export type GantryMember = z.output<typeof gantryMemberSchema>;

/** The member's lists, validated an item at a time like the backup's own (see backup.parse.ts). */
export const GANTRY_MEMBER_LISTS: Readonly<Record<string, z.ZodType>> = {
  keys: keyEntrySchema,
  repositories: entrySchema,
  inventories: entrySchema,
  environments: entrySchema,
  views: entrySchema,
  templates: entrySchema,
};

export type CombinedExport = SemaphoreExport & { [GANTRY_MEMBER]: GantryMember };

/** Entries for the objects whose Semaphore name differs from their own (the lists are in the same order). */
function renamed(own: ReadonlyArray<string>, written: ReadonlyArray<string | null>) {
  return own.flatMap((name, i) => (written[i] === name ? [] : [{ name: written[i] ?? '', gantry_name: name }]));
}

/** A Gantry backup as the combined file: Semaphore's format with the `gantry` member last. */
export function toCombined(b: ProjectBackup): CombinedExport {
  const sem = toSemaphore(b);
  const keys = b.keys.flatMap((k, i) => {
    const name = sem.keys[i]!.name;
    const entry = {
      name,
      ...(name === k.name ? {} : { gantry_name: k.name }),
      ...(k.ssh?.login ? { ssh: { login: k.ssh.login } } : {}),
    };
    return Object.keys(entry).length > 1 ? [entry] : [];
  });
  return {
    ...sem,
    [GANTRY_MEMBER]: {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      ...(b.meta.exported ? { exported: b.meta.exported } : {}),
      keys,
      repositories: renamed(
        b.repositories.map((r) => r.name),
        sem.repositories.map((r) => r.name),
      ),
      inventories: renamed(
        b.inventories.map((i) => i.name),
        sem.inventories.map((i) => i.name),
      ),
      environments: renamed(
        b.environments.map((e) => e.name),
        sem.environments.map((e) => e.name),
      ),
      views: renamed(
        b.views.map((v) => v.title),
        sem.views.map((v) => v.title),
      ),
      templates: renamed(
        b.templates.map((t) => t.name),
        sem.templates.map((t) => t.name),
      ),
    },
  };
}

/**
 * The Gantry document converted from a combined file's Semaphore part, given back what the
 * `gantry` member adds: each object the member names (first entry per name) gets its Gantry
 * name, an ssh key its login. Objects the member does not name are left as they are.
 */
export function withGantryMember(doc: ProjectBackupInput, member: GantryMember): ProjectBackupInput {
  const index = <T extends { name: string }>(entries: T[]) => {
    const map = new Map<string, T>();
    for (const e of entries) if (!map.has(e.name)) map.set(e.name, e);
    return map;
  };
  const rename = <T extends { name: string }>(items: T[] | undefined, entries: GantryMember['repositories']) => {
    const byName = index(entries);
    return items?.map((o) => ({ ...o, name: byName.get(o.name)?.gantry_name ?? o.name }));
  };
  const keys = index(member.keys);
  const views = index(member.views);
  return {
    ...doc,
    meta: { ...doc.meta, ...(member.exported ? { exported: member.exported } : {}) },
    keys: doc.keys?.map((k) => {
      const entry = keys.get(k.name);
      return {
        ...k,
        name: entry?.gantry_name ?? k.name,
        ...(k.type === 'ssh' && entry?.ssh ? { ssh: entry.ssh } : {}),
      };
    }),
    repositories: rename(doc.repositories, member.repositories),
    inventories: rename(doc.inventories, member.inventories),
    environments: rename(doc.environments, member.environments),
    views: doc.views?.map((v) => ({ ...v, title: views.get(v.title)?.gantry_name ?? v.title })),
    templates: rename(doc.templates, member.templates),
  };
}
