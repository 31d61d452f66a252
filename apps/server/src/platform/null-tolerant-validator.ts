import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { ZodType } from 'zod';

type Issue = { path: PropertyKey[]; code?: string; errors?: Issue[][] };

/**
 * Request bodies as Semaphore's clients send them: `"type": null`, `"description": null`,
 * `"env": null` mean "not given" (Go's nil pointers and zero structs marshal that way). A body is
 * first validated as sent; when that fails, every `null` the schema refuses where the field may be
 * left out is removed and the body is validated again, so the field's default or stored value
 * applies. A `null` the schema accepts (a nullable field) keeps its meaning ("empty"), and a
 * `null` in a required field is still refused, naming the field.
 */
export const nullTolerantValidatorCompiler: FastifySchemaCompiler<ZodType> = (route) => {
  const validate = validatorCompiler(route);
  if (route.httpPart !== 'body') return validate;
  const schema = route.schema;
  return (data) => {
    // fastify-type-provider-zod's compiler answers `{ error }` or `{ value }`, synchronously.
    const first = validate(data) as { error?: Error; value?: unknown };
    if (!first.error || !containsNull(data)) return first;
    const cleaned = withoutRefusedNulls(schema, data);
    return cleaned === data ? first : validate(cleaned);
  };
};

/** The body without the `null` members whose removal the schema accepts; `data` when there is none. */
export function withoutRefusedNulls(schema: ZodType, data: unknown): unknown {
  let current = data;
  // Each round removes the nulls the last parse complained about; nested objects may need more.
  for (let round = 0; round < 8; round++) {
    const result = schema.safeParse(current);
    if (result.success) return current;
    const paths = nullPaths(result.error.issues as Issue[], [], current);
    if (paths.length === 0) break;
    const next = structuredClone(current) as Record<string, unknown>;
    for (const path of paths) removeAt(next, path);
    // A required field's null becomes "not given", which the schema refuses naming the field.
    current = next;
  }
  return current;
}

function nullPaths(issues: Issue[], prefix: PropertyKey[], data: unknown): PropertyKey[][] {
  const out: PropertyKey[][] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors) {
      for (const branch of issue.errors) out.push(...nullPaths(branch, path, data));
      continue;
    }
    if (path.length > 0 && valueAt(data, path) === null) out.push(path);
  }
  return out;
}

function valueAt(data: unknown, path: PropertyKey[]): unknown {
  let v = data;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

function removeAt(data: Record<string, unknown>, path: PropertyKey[]): void {
  const parent = valueAt(data, path.slice(0, -1));
  const key = path[path.length - 1]!;
  // Only members of objects: a null inside an array is an element, not an absent field.
  if (parent && typeof parent === 'object' && !Array.isArray(parent)) delete (parent as Record<PropertyKey, unknown>)[key];
}

function containsNull(data: unknown): boolean {
  if (data === null) return true;
  if (typeof data !== 'object') return false;
  return Object.values(data as object).some(containsNull);
}
