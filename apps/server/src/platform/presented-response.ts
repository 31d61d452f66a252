import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { serializerCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';

// Response schemas whose routes answer only what a presenter built field by field (tasks.presenter.ts):
// the answer already has the schema's shape, so checking it again per item is pure cost (a list of
// 200 tasks spent more time in that check than in its query). Tests hold each presenter to its
// schema (presented-response.int.test.ts); every other schema is still checked and stripped on the way out.
const presented = new WeakSet<object>();

/** Marks `schema` as answered by a presenter (see above); answers it. */
export function presentedResponse<T extends z.ZodType>(schema: T): T {
  presented.add(schema);
  return schema;
}

/** Zod's serializer (check, strip, then JSON), except for the schemas marked by presentedResponse. */
export const responseSerializerCompiler: FastifySerializerCompiler<unknown> = (route) =>
  presented.has(route.schema as object)
    ? (data: unknown) => JSON.stringify(data)
    : (serializerCompiler as unknown as FastifySerializerCompiler<unknown>)(route);
