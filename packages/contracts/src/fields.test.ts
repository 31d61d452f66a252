import { describe, expect, it } from 'vitest';
import { description, requiredString, singleLine } from './fields.js';
import { keyCreateSchema, projectCreateSchema, runnerInputSchema, templateInputSchema } from './index.js';

const firstError = (r: { success: boolean; error?: { issues: Array<{ message: string }> } }) =>
  r.error?.issues[0]?.message;

describe('field helpers', () => {
  it('requiredString: trimmed, 1 to 255 characters, no control characters', () => {
    const name = requiredString('Name');
    expect(name.parse(`  ${'a'.repeat(255)}  `)).toBe('a'.repeat(255));
    expect(firstError(name.safeParse('   '))).toBe('Name is required');
    expect(firstError(name.safeParse('a'.repeat(256)))).toBe('Name must be at most 255 characters');
    for (const c of ['\u0000', '\u0007', '\n', '\t', '\u001f', '\u007f']) {
      expect(firstError(name.safeParse(`a${c}b`))).toBe('Name must not contain control characters');
    }
    expect(firstError(requiredString('Title', 100).safeParse('t'.repeat(101)))).toBe(
      'Title must be at most 100 characters',
    );
  });

  it('singleLine may be empty; description allows line breaks and tabs, up to 4096', () => {
    expect(singleLine('Tag').default('').parse(undefined)).toBe('');
    expect(firstError(singleLine('Tag').safeParse('x\u0000'))).toBe('Tag must not contain control characters');
    const d = description();
    expect(d.parse(undefined)).toBe('');
    expect(d.parse('line one\r\n\tline two\n')).toBe('line one\r\n\tline two\n');
    expect(d.parse('d'.repeat(4096))).toHaveLength(4096);
    expect(firstError(d.safeParse('d'.repeat(4097)))).toBe('Description must be at most 4096 characters');
    expect(firstError(d.safeParse('a\u0000b'))).toBe('Description must not contain control characters');
  });

  it('schemas use them', () => {
    expect(firstError(projectCreateSchema.safeParse({ name: 'p'.repeat(256) }))).toBe(
      'Project name must be at most 255 characters',
    );
    expect(firstError(keyCreateSchema.safeParse({ name: 'k\u0000', type: 'none' }))).toBe(
      'Name must not contain control characters',
    );
    expect(firstError(runnerInputSchema.safeParse({ name: 'r', tag: 'a\nb' }))).toBe(
      'Tag must not contain control characters',
    );
    const tpl = { name: 't', app: 'bash', playbook: 'a.sh', repository_id: 1, environment_id: 1 };
    expect(firstError(templateInputSchema.safeParse({ ...tpl, description: 'x'.repeat(4097) }))).toBe(
      'Description must be at most 4096 characters',
    );
  });
});
