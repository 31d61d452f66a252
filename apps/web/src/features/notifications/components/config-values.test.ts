import type { NotificationDestination } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { initialConfig, missingOrInvalid, randomSecret, toConfig } from './config-values';

const stored: NotificationDestination = {
  id: 1,
  project_id: 1,
  name: 'Mail',
  kind: 'email',
  config: { to: ['a@example.com', 'b@example.com'], port: 465, secure: true },
  secrets: { password: true },
  target: 'a@example.com, b@example.com',
  active: true,
  created: '2026-01-01T00:00:00Z',
  last_delivery: null,
};

describe('destination form values', () => {
  it('start from what the destination has; secrets start empty', () => {
    expect(initialConfig('email', stored)).toEqual({
      to: 'a@example.com, b@example.com',
      host: '',
      port: '465',
      secure: true,
      username: '',
      password: '',
      sender: '',
    });
  });

  it('send numbers, lists and switches as such; leave an empty secret out so the stored one is kept', () => {
    const body = toConfig('email', {
      ...initialConfig('email', stored),
      to: 'a@example.com; c@example.com\nd@example.com',
    });
    expect(body).toEqual({
      to: ['a@example.com', 'c@example.com', 'd@example.com'],
      host: null,
      port: 465,
      secure: true,
      username: null,
      sender: null,
    });
    expect(body).not.toHaveProperty('password');
  });

  it('ask for required fields unless the secret is stored, and for whole numbers', () => {
    expect(missingOrInvalid('webhook', { url: '', secret: '', payload_template: '', content_type: '' }, null)).toEqual({
      url: 'required',
      secret: 'required',
    });
    const webhook = { ...stored, kind: 'webhook' as const, secrets: { url: true, secret: true } };
    expect(missingOrInvalid('webhook', { url: '', secret: '' }, webhook)).toEqual({});
    expect(missingOrInvalid('gotify', { url: 'https://g', token: 't', priority: '5x' }, null)).toEqual({
      priority: 'invalid',
    });
  });

  it('generate 32-character secrets from letters and digits, different each time', () => {
    const a = randomSecret();
    expect(a).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(randomSecret()).not.toBe(a);
  });
});
