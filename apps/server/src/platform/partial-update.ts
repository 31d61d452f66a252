import type { FastifyRequest } from 'fastify';
import type { ZodType } from 'zod';

/**
 * Partial `PUT`s as Semaphore's clients send them: a field left out, or sent as `null` where the
 * field cannot be null, keeps its stored value instead of falling back to the schema's default
 * (Semaphore's handlers decode the body over the stored object). Runs after the permission guard
 * and before validation, so the merged body is validated whole; `load` reads the stored object
 * as the API presents it, scoped by project like every lookup. Secrets are never presented, so a
 * left-out secret stays "keep the stored one", as before.
 */
export function keepStoredFields(
  schema: ZodType,
  load: (request: FastifyRequest) => Promise<unknown>,
  /**
   * Fields that belong to another one (an integration's `auth_header` to its `auth_method`): kept
   * only while the body leaves that one as stored, since a new method brings its own default.
   */
  boundTo: Record<string, string> = {},
): (request: FastifyRequest) => Promise<void> {
  const shape = objectShape(schema);
  return async (request) => {
    const body = request.body;
    if (!shape || !isPlainObject(body)) return;
    const missing = Object.keys(shape).filter((k) => body[k] === undefined || (body[k] === null && !declaresNull(shape[k]!)));
    if (missing.length === 0) return;
    const stored = await load(request);
    if (!isPlainObject(stored)) return;
    for (const key of missing) {
      const owner = boundTo[key];
      if (owner && body[owner] !== undefined && body[owner] !== null && body[owner] !== stored[owner]) continue;
      const value = stored[key];
      if (value === undefined || (value === null && !declaresNull(shape[key]!))) continue;
      // Only a stored value the update accepts as it stands (a presented shape may differ from the input's).
      if (accepts(shape[key]!, value)) body[key] = structuredClone(value);
    }
  };
}

type Def = { type?: string; shape?: Record<string, ZodType>; in?: ZodType; innerType?: ZodType };

/** The object members of a body schema, through refinements, transforms, defaults and optionality. */
export function objectShape(schema: ZodType): Record<string, ZodType> | null {
  let s: ZodType | undefined = schema;
  for (let depth = 0; s && depth < 10; depth++) {
    const def: Def = (s as unknown as { def: Def }).def;
    if (def.type === 'object') return def.shape ?? null;
    s = def.type === 'pipe' ? def.in : def.innerType;
  }
  return null;
}

/**
 * Whether `null` is a value of the field (Semaphore's nullable columns: `null` empties them) rather
 * than a way of not giving it (a schema that merely maps `null` to its default).
 */
export function declaresNull(schema: ZodType): boolean {
  let s: ZodType | undefined = schema;
  for (let depth = 0; s && depth < 10; depth++) {
    const def: Def = (s as unknown as { def: Def }).def;
    if (def.type === 'nullable' || def.type === 'null') return true;
    s = def.type === 'pipe' ? def.in : def.innerType;
  }
  return false;
}

function accepts(schema: ZodType, value: unknown): boolean {
  return schema.safeParse(value).success;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
