import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature } from './signature.js';

describe('webhook signature', () => {
  const secret = 'whsec-0123456789abcdef';
  const body = '{"event":"task_failed"}';

  it('is t=<unix>,v1=<hex HMAC-SHA256 of "t.body">', () => {
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(signatureHeader(secret, body, 1700000000)).toBe(`t=1700000000,v1=${expected}`);
  });

  it('verifies within the tolerance and refuses a changed body, secret, time or stale header', () => {
    const header = signatureHeader(secret, body, 1700000000);
    expect(verifySignature(secret, header, body, 1700000100)).toBe(true);
    expect(verifySignature(secret, header, `${body} `, 1700000100)).toBe(false);
    expect(verifySignature('other-secret-0123456', header, body, 1700000100)).toBe(false);
    expect(verifySignature(secret, header.replace('t=1700000000', 't=1700000001'), body, 1700000100)).toBe(false);
    expect(verifySignature(secret, header, body, 1700000301)).toBe(false);
    expect(verifySignature(secret, 'garbage', body, 1700000000)).toBe(false);
    expect(verifySignature(secret, 't=1700000000,v1=zz', body, 1700000000)).toBe(false);
  });
});
