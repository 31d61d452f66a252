import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox, hashPassword, randomToken, verifyPassword } from './crypto.js';

describe('crypto', () => {
  it('hashes passwords with a salt and verifies them', async () => {
    const a = await hashPassword('hunter2');
    const b = await hashPassword('hunter2');
    expect(a).not.toBe(b);
    expect(await verifyPassword('hunter2', a)).toBe(true);
    expect(await verifyPassword('hunter3', a)).toBe(false);
    expect(await verifyPassword('hunter2', 'garbage')).toBe(false);
  });

  it('seals secrets with AES-256-GCM and detects tampering', () => {
    const box = new SecretBox(randomBytes(32));
    const sealed = box.seal('canary-secret');
    expect(sealed).not.toContain('canary');
    expect(box.open(sealed)).toBe('canary-secret');
    const parts = sealed.split(':');
    parts[3] = Buffer.from('tampered').toString('base64');
    expect(() => box.open(parts.join(':'))).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow();
  });

  it('makes random tokens of the asked length from [a-z0-9]', () => {
    const t = randomToken(40);
    expect(t).toMatch(/^[a-z0-9]{40}$/);
    expect(randomToken(40)).not.toBe(t);
  });
});
