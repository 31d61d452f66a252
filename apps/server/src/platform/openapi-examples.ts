import type { ZodType } from 'zod';

/**
 * Example bodies for the API document's main resources, as zod metadata (`examples` flows into the
 * operation's JSON Schema). openapi-examples.int.test.ts parses every one with its schema, so an
 * example that drifts from the contract fails a test instead of misleading a reader.
 */
export const examples = {
  keyCreate: {
    name: 'deploy key',
    type: 'ssh',
    ssh: { login: 'deploy', passphrase: '', private_key: '-----BEGIN OPENSSH PRIVATE KEY-----\n…' },
  },
  key: {
    id: 3,
    project_id: 1,
    name: 'deploy key',
    type: 'ssh',
    string: '',
    login_password: { login: '', password: '' },
    ssh: { login: 'deploy', passphrase: '', private_key: '' },
    override_secret: false,
  },
  templateCreate: {
    name: 'Deploy web',
    type: '',
    app: 'ansible',
    playbook: 'site.yml',
    repository_id: 2,
    inventory_id: 4,
    environment_id: 5,
    description: 'Rolls the web tier',
  },
  taskCreate: { template_id: 7, message: 'Release 1.4', git_branch: 'main', limit: 'web' },
  destinationCreate: {
    name: 'Ops channel',
    kind: 'slack',
    config: { url: 'https://hooks.slack.com/services/T000/B000/XXXX' },
  },
  destination: {
    id: 2,
    project_id: 1,
    name: 'Ops channel',
    kind: 'slack',
    config: {},
    secrets: { url: true },
    target: 'hooks.slack.com',
    active: true,
    created: '2026-01-05T10:00:00.000Z',
    last_delivery: { time: '2026-01-06T08:30:00.000Z', status: 'sent', error: null },
  },
} as const;

/**
 * The schema with one example for the document; a clone, so it validates exactly as before.
 * `x-examples` (which @fastify/swagger turns into the media type's `examples`), not `examples`:
 * zod drops `examples` from the input side of any schema with a transform, as most inputs have.
 */
export function withExample<T extends ZodType>(schema: T, example: unknown): T {
  return schema.meta({ 'x-examples': { example: { value: example } } }) as T;
}

/** Examples of the project resources served by resourceRoutes, by their path segment. */
export const resourceExamples: Record<string, { item?: unknown; create?: unknown }> = {
  keys: { item: examples.key, create: examples.keyCreate },
  templates: { create: examples.templateCreate },
};
