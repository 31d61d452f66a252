import { describe, expect, it } from 'vitest';
import { maskSecrets } from './mask-secrets.js';

const MASK = '**********';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const b64url = (text: string) => Buffer.from(text).toString('base64url');

describe('maskSecrets', () => {
  const secret = 'hunter2-is-my-pa$$word?>';

  it('masks the base64 of the whole value, standard and URL-safe, with or without padding', () => {
    for (const value of [secret, 'ab?>~~~', 'x?>~ü']) {
      const standard = b64(value);
      const url = b64url(value);
      expect(standard).not.toBe(url); // the values are chosen to have + or / in their base64
      for (const form of [standard, standard.replace(/=+$/, ''), url]) {
        const out = maskSecrets(`token: ${form} end`, [value]);
        expect(out).not.toContain(form);
        expect(out).toContain(MASK);
      }
    }
  });

  it('masks the secret inside longer base64 at each of the three alignments', () => {
    for (const prefix of ['', 'a', 'ab', 'abc', 'user:', 'ci-bot:']) {
      for (const suffix of ['', '!', '!!', '\n']) {
        const encoded = b64(`${prefix}${secret}${suffix}`);
        const out = maskSecrets(`Authorization: Basic ${encoded}`, [secret]);
        expect(out, `${prefix}|${suffix}`).toContain(MASK);
        // What is left of the encoding cannot give the secret back: at most a few characters.
        const left = out.replace('Authorization: Basic ', '').replace(MASK, '');
        expect(left.length, `${prefix}|${suffix}`).toBeLessThanOrEqual(encoded.length - b64(secret).length + 6);
        for (const form of [b64(secret).slice(2, -2), b64url(secret).slice(2, -2)]) expect(out).not.toContain(form);
      }
    }
  });

  it('masks a Basic header built from a login and password, the way clients send it, and the value itself', () => {
    const header = `Basic ${b64(`deploy:${secret}`)}`;
    const out = maskSecrets(`> GET /state HTTP/1.1\n> Authorization: ${header}\npassword=${secret}; done`, [secret]);
    expect(out).not.toContain(header.slice(6));
    expect(out).toMatch(/^> GET \/state HTTP\/1\.1\n> Authorization: Basic .*\*{10}.*\npassword=\*{10}; done$/);
  });

  it('leaves other text alone, and values too short to mask', () => {
    expect(maskSecrets('nothing to see here', [secret])).toBe('nothing to see here');
    expect(maskSecrets(`ab ${b64('ab')}`, ['ab'])).toBe(`ab ${b64('ab')}`);
    expect(maskSecrets('YWJj abc', ['abc'])).toBe(`${MASK} ${MASK}`);
  });

  it('masks the longer of two overlapping secrets whole', () => {
    expect(maskSecrets('k=abcdef', ['abc', 'abcdef'])).toBe(`k=${MASK}`);
    expect(maskSecrets(`k=${b64('abcdef')}`, ['abc', 'abcdef'])).toBe(`k=${MASK}`);
  });

  it('follows a list the caller adds to', () => {
    const secrets = [secret];
    expect(maskSecrets(b64('late-secret-value'), secrets)).toBe(b64('late-secret-value'));
    secrets.push('late-secret-value');
    expect(maskSecrets(b64('late-secret-value'), secrets)).toBe(MASK);
  });
});
