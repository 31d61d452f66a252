import { CSRF_HEADER, ErrorCodes, SESSION_COOKIE } from '@gantry/contracts';
import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';

/**
 * The frame of `/api/openapi.json` (@fastify/swagger fills `paths` from the routes' zod schemas):
 * OpenAPI 3.1, so the schemas are JSON Schema 2020-12 as zod writes them; how to authenticate;
 * and the error body every refusal shares, with every stable code a client can meet.
 */
export function openApiDocument(version: string): Partial<OpenAPIV3_1.Document> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gantry API',
      version,
      description:
        "Semaphore UI's API and Gantry's own. Every refusal answers the `Error` body; `code` is stable, `error` is English text.",
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API token (`POST /api/user/tokens`): `Authorization: Bearer <token>`.',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: `The console's session cookie; changes also need the \`${CSRF_HEADER}\` header.`,
        },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: { type: 'string', description: 'What went wrong, in English.' },
            code: { type: 'string', enum: [...new Set(Object.values(ErrorCodes))].sort() },
            field: { type: 'string', description: 'The request field it is about (a dotted path).' },
          },
          additionalProperties: true,
          examples: [{ error: 'Name is required', code: 'field_required', field: 'name', label_key: 'name' }],
        },
      },
    },
    security: [{ bearer: [] }, { session: [] }],
  };
}

/** The refusal body as each operation lists it (the codes are in `components.schemas.Error`). */
const refusal = {
  description: 'A refusal: `{error, code, field?}` (see components.schemas.Error for every code).',
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string' }, code: { type: 'string' }, field: { type: 'string' } },
  additionalProperties: true,
};

/**
 * Wraps the zod transform: public routes (sign-in, health, incoming webhooks) need no
 * credentials, and every operation names the refusal body for the statuses it does not describe.
 */
export function openApiTransform(base: SwaggerTransform): SwaggerTransform {
  return (doc) => {
    const out = base(doc);
    const schema = out.schema as (FastifySchema & { hide?: boolean; response?: Record<string, unknown> }) | undefined;
    if (!schema || schema.hide) return out;
    const config = (doc.route.config ?? {}) as { public?: boolean; webhook?: boolean };
    const response = { ...(schema.response ?? {}) };
    if (!('default' in response)) response.default = refusal;
    return {
      url: out.url,
      schema: { ...schema, response, ...(config.public || config.webhook ? { security: [] } : {}) },
    };
  };
}

/**
 * A success that answers nothing (204, or Terraform's bare 200s). The type provider writes `undefined` as
 * `type: null`, which @fastify/swagger documents as no content; `send()` with no body never
 * reaches the serializer, so the reply is untouched.
 */
export const noBody = (description: string) => z.undefined().describe(description);
export const noContent = noBody('Done; no body.');
/** A redirect (its target in `Location`); `reply.redirect` sends no body. */
export const redirect = (description: string) => noBody(description);

/** A JSON document the route passes on as text (a Terraform state, a backup). */
export const jsonObject = z.record(z.string(), z.unknown());

/**
 * A success whose body is not JSON the route shapes (raw logs, state files, downloads): the
 * document names its content type, and Fastify sends strings, buffers and streams as they are.
 */
export function rawBody(contentType: string, description: string, schema: z.ZodType = z.string()) {
  return { description, content: { [contentType]: { schema } } };
}
