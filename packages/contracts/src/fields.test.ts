import { describe, expect, it } from 'vitest';
import {
  description,
  formatBytes,
  hasInvisibleCharacters,
  requiredName,
  requiredString,
  singleLine,
  utf8Length,
} from './fields.js';
import {
  environmentInputSchema,
  keyCreateSchema,
  projectCreateSchema,
  runnerInputSchema,
  templateInputSchema,
} from './index.js';

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

  it('requiredName and description refuse bidirectional-override and invisible characters, with a code', () => {
    const name = requiredName('Name');
    for (const c of [
      '\u202A',
      '\u202E',
      '\u2066',
      '\u2069',
      '\u200B',
      '\u200F',
      '\u2060',
      '\u2064',
      '\uFEFF',
      '\u00AD',
      '\u0085',
      '\u061C',
      '\u2028',
      '\u3164',
      '\u{E0041}',
    ]) {
      const r = name.safeParse(`a${c}b`);
      expect(r.success, c.codePointAt(0)!.toString(16)).toBe(false);
      expect(r.error?.issues[0]).toMatchObject({
        message: 'Name must not contain invisible or bidirectional control characters',
        params: { code: 'invisible_characters' },
      });
    }
    expect(name.parse('Café — prod 🚀 東京')).toBe('Café — prod 🚀 東京');
    const d = description();
    expect(d.parse('line\tone\r\nline two')).toBe('line\tone\r\nline two');
    expect(firstError(d.safeParse('safe\u202Eexe.txt'))).toBe(
      'Description must not contain invisible or bidirectional control characters',
    );
    expect(hasInvisibleCharacters('plain')).toBe(false);
  });

  it('key secrets are at most 64 KiB (UTF-8 bytes), naming the field, with a code', () => {
    const key = (password: string) =>
      keyCreateSchema.safeParse({ name: 'k', type: 'login_password', login_password: { login: 'l', password } });
    expect(key('p'.repeat(64 * 1024)).success).toBe(true);
    const r = key('p'.repeat(64 * 1024 + 1));
    expect(r.error?.issues[0]).toMatchObject({
      path: ['login_password', 'password'],
      message: 'Password must be at most 64 KiB',
      params: { code: 'too_large' },
    });
    expect(key('é'.repeat(32 * 1024 + 1)).success).toBe(false);
    const ssh = keyCreateSchema.safeParse({ name: 'k', type: 'ssh', ssh: { private_key: 'A'.repeat(70 * 1024) } });
    expect(ssh.error?.issues[0]).toMatchObject({
      path: ['ssh', 'private_key'],
      message: 'Private key must be at most 64 KiB',
    });
    expect(utf8Length('aé€😀')).toBe(1 + 2 + 3 + 4);
    expect([formatBytes(65536), formatBytes(1048576), formatBytes(1000)]).toEqual(['64 KiB', '1 MiB', '1000 bytes']);
  });

  it('a variable group holds at most 1 MiB of extra variables, environment variables and secrets together', () => {
    const group = (o: object) => environmentInputSchema.safeParse({ name: 'g', ...o });
    const half = JSON.stringify({ a: 'x'.repeat(512 * 1024) });
    expect(group({ json: half, env: '{}' }).success).toBe(true);
    const r = group({
      json: half,
      env: JSON.stringify({ B: 'y'.repeat(300 * 1024) }),
      secrets: [{ name: 's', type: 'var', secret: 'z'.repeat(300 * 1024) }],
    });
    expect(r.error?.issues[0]).toMatchObject({
      path: ['json'],
      message: 'Extra variables, environment variables and secrets of a variable group must be at most 1 MiB in total',
      params: { code: 'too_large' },
    });
    expect(
      group({ secrets: [{ name: 's', type: 'var', secret: 'z'.repeat(1024 * 1024 + 1) }] }).error?.issues[0]?.path,
    ).toEqual(['secrets']);
  });
});
