import {
  keyCreateSchema,
  keySchema,
  notificationDestinationInputSchema,
  notificationDestinationSchema,
  taskCreateSchema,
  templateInputSchema,
} from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { examples } from '../../platform/openapi-examples.js';
import { engines, useTestApp } from '../../test/harness.js';

/** A media type: @fastify/swagger moves the schema's `x-examples` to `examples` here. */
type Media = { examples?: { example?: { value: unknown } } };
type Operation = { responses: Record<string, { content?: Record<string, Media> }> };
type Paths = Record<string, Record<string, Operation>>;
type Doc = { paths: Paths };

/** Operations with no success to declare: the Terraform backend's DELETE only ever refuses (405). */
const NO_SUCCESS = new Set(['delete /api/terraform/{alias}']);

describe('OpenAPI responses', () => {
  const t = useTestApp(engines[0]!);
  const doc = async () => (await t().app.inject('/api/openapi.json')).json() as Doc;

  it('declares a success for every operation', async () => {
    const { paths } = await doc();
    const missing = Object.entries(paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => !Object.keys(op.responses).some((s) => /^[23]/.test(s)))
        .map(([method]) => `${method} ${path}`)
        .filter((op) => !NO_SUCCESS.has(op)),
    );
    expect(missing).toEqual([]);
  });

  it('documents 204s without a body and raw answers with their content type', async () => {
    const { paths } = await doc();
    const del = paths['/api/project/{projectId}/keys/{id}']!.delete!.responses['204']!;
    expect(del.content).toBeUndefined();
    const raw = paths['/api/project/{projectId}/tasks/{id}/raw_output']!.get!.responses['200']!;
    expect(Object.keys(raw.content ?? {})).toEqual(['text/plain']);
    const state = paths['/api/terraform/{alias}']!.get!.responses;
    expect(Object.keys(state['200']!.content ?? {})).toEqual(['application/json']);
    expect(state['204']!.content).toBeUndefined();
    expect(paths['/api/auth/oidc/{providerId}/login']!.get!.responses['302']).toBeDefined();
  });

  it('carries the examples, and every example is valid for its schema', async () => {
    const { paths } = await doc();
    const json = (op: Operation | undefined, status: string) => op?.responses[status]?.content?.['application/json'];
    const body = (op: unknown) =>
      (op as { requestBody?: { content: Record<string, Media> } }).requestBody?.content['application/json']?.examples
        ?.example?.value;
    expect(json(paths['/api/project/{projectId}/keys']!.post, '201')?.examples?.example?.value).toEqual(examples.key);
    expect(body(paths['/api/project/{projectId}/keys']!.post)).toEqual(examples.keyCreate);
    expect(body(paths['/api/project/{projectId}/templates']!.post)).toEqual(examples.templateCreate);
    expect(body(paths['/api/project/{projectId}/tasks']!.post)).toEqual(examples.taskCreate);
    expect(body(paths['/api/project/{projectId}/notification-destinations']!.post)).toEqual(examples.destinationCreate);

    keySchema.parse(examples.key);
    keyCreateSchema.parse(examples.keyCreate);
    templateInputSchema.parse(examples.templateCreate);
    taskCreateSchema.parse(examples.taskCreate);
    notificationDestinationInputSchema.parse(examples.destinationCreate);
    notificationDestinationSchema.parse(examples.destination);
  });
});
