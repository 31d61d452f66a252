import { describe, expect, it } from 'vitest';
import { redactState } from './state-redaction.js';

const state = {
  version: 4,
  outputs: {
    pw: { value: 's3cret-canary', type: 'string', sensitive: true },
    greeting: { value: 'hello', type: 'string' },
  },
  resources: [
    {
      mode: 'managed',
      type: 'terraform_data',
      name: 'example',
      instances: [
        {
          attributes: {
            id: 'abc',
            input: { value: 'hidden-input', type: 'string' },
            list: ['a', 'hidden-item'],
            output: 'visible',
          },
          sensitive_attributes: [
            [{ type: 'get_attr', value: 'input' }],
            [
              { type: 'get_attr', value: 'list' },
              { type: 'index', value: { value: 1, type: 'number' } },
            ],
            [{ type: 'get_attr', value: 'missing' }],
          ],
        },
      ],
    },
  ],
};

describe('redactState', () => {
  it('hides sensitive outputs and sensitive attributes, keeps the rest', () => {
    const out = redactState(JSON.stringify(state));
    expect(out).not.toContain('s3cret-canary');
    expect(out).not.toContain('hidden-input');
    expect(out).not.toContain('hidden-item');
    const parsed = JSON.parse(out) as typeof state;
    expect(parsed.outputs.pw).toEqual({ value: '(sensitive)', type: 'string', sensitive: true });
    expect(parsed.outputs.greeting.value).toBe('hello');
    expect(parsed.resources[0]!.instances[0]!.attributes).toEqual({
      id: 'abc',
      input: '(sensitive)',
      list: ['a', '(sensitive)'],
      output: 'visible',
    });
  });

  it('hides copies of a sensitive value in attributes terraform does not mark', () => {
    const s = {
      outputs: {
        pw: { value: { nested: 'output-secret' }, sensitive: true },
        echo: { value: 'output-secret' },
        other: { value: 'fine' },
      },
      resources: [
        {
          type: 'terraform_data',
          name: 'attr-secret',
          instances: [
            {
              attributes: {
                input: { value: 'attr-secret', type: 'string' },
                output: { value: 'attr-secret', type: 'string' },
                list: ['output-secret', 'kept'],
                short: 'abc',
              },
              sensitive_attributes: [[{ type: 'get_attr', value: 'input' }]],
            },
          ],
        },
        { type: 't', name: 'other', instances: [{ attributes: { x: 'attr-secret', y: 'string', z: 'abc' } }] },
      ],
    };
    const out = JSON.parse(redactState(JSON.stringify(s))) as typeof s;
    expect(out.outputs.echo.value).toBe('(sensitive)');
    expect(out.outputs.other.value).toBe('fine');
    expect(out.resources[0]!.instances[0]!.attributes).toEqual({
      input: '(sensitive)',
      output: { value: '(sensitive)', type: 'string' },
      list: ['(sensitive)', 'kept'],
      short: 'abc',
    });
    // Names and types stay; other resources' copies go; type names are never taken for secrets.
    expect(out.resources[0]!.name).toBe('attr-secret');
    expect(out.resources[1]!.instances[0]!.attributes).toEqual({ x: '(sensitive)', y: 'string', z: 'abc' });
  });

  it('hides a whole branch when a path step is not understood', () => {
    const s = {
      resources: [
        {
          instances: [
            {
              attributes: { a: { b: 'x' } },
              sensitive_attributes: [[{ type: 'get_attr', value: 'a' }, { type: 'weird' }]],
            },
          ],
        },
      ],
    };
    const out = JSON.parse(redactState(JSON.stringify(s))) as typeof s;
    expect(out.resources[0]!.instances[0]!.attributes).toEqual({ a: '(sensitive)' });
  });

  it('shows nothing of text that is not a JSON object', () => {
    expect(redactState('not json secret')).not.toContain('secret');
    expect(redactState('"str"')).toBe('{"error":"unreadable state"}');
  });
});
