import { describe, expect, it } from 'vitest';
import { hideSecrets } from './hosts.service.js';

describe('hideSecrets', () => {
  it('hides secret-looking names and values equal to a project secret, at any depth', () => {
    const vars = {
      ansible_password: 'p',
      api_token: 'abc',
      ssh_private_key_file: '/k',
      motd: 'hunter22',
      port: 8080,
      nested: { db: { password: 'x', user: 'app' }, list: ['hunter22', 'ok'] },
      plain: 'visible',
    };
    expect(hideSecrets(vars, new Set(['hunter22']))).toEqual({
      ansible_password: '********',
      api_token: '********',
      ssh_private_key_file: '********',
      motd: '********',
      port: 8080,
      nested: { db: { password: '********', user: 'app' }, list: ['********', 'ok'] },
      plain: 'visible',
    });
  });
});
