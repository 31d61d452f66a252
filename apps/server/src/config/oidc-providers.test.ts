import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

const gitlab = { display_name: 'GitLab', provider_url: 'https://gitlab.example', client_id: 'gantry', client_secret: 's3cr3t-value' };

describe('GANTRY_OIDC_PROVIDERS', () => {
  it('is empty by default and password sign-in is on', () => {
    const c = loadConfig({});
    expect(c.oidcProviders).toEqual([]);
    expect(c.passwordLoginDisabled).toBe(false);
  });

  it('fills in the documented defaults', () => {
    const c = loadConfig({ GANTRY_WEB_HOST: 'https://g.example/', GANTRY_OIDC_PROVIDERS: JSON.stringify({ gitlab }), GANTRY_PASSWORD_LOGIN_DISABLED: 'true' });
    expect(c.passwordLoginDisabled).toBe(true);
    expect(c.oidcProviders).toEqual([
      {
        id: 'gitlab',
        displayName: 'GitLab',
        color: '',
        icon: '',
        providerUrl: 'https://gitlab.example',
        clientId: 'gantry',
        clientSecret: 's3cr3t-value',
        redirectUrl: 'https://g.example/api/auth/oidc/gitlab/redirect',
        scopes: ['openid', 'profile', 'email'],
        usernameClaim: 'preferred_username',
        nameClaim: 'name',
        emailClaim: 'email',
        allowInsecureHttp: false,
        ownMfa: false,
      },
    ]);
  });

  it('marks a provider as doing its own MFA only when told so', () => {
    const c = loadConfig({ GANTRY_OIDC_PROVIDERS: JSON.stringify({ gitlab: { ...gitlab, own_mfa: true } }) });
    expect(c.oidcProviders[0]?.ownMfa).toBe(true);
    expect(() => loadConfig({ GANTRY_OIDC_PROVIDERS: JSON.stringify({ gitlab: { ...gitlab, own_mfa: 'yes' } }) })).toThrow(/own_mfa must be true or false/);
  });

  it('allows plain http only for an issuer on this machine', () => {
    const local = loadConfig({ GANTRY_OIDC_PROVIDERS: JSON.stringify({ dev: { ...gitlab, provider_url: 'http://127.0.0.1:39555' } }) });
    expect(local.oidcProviders[0]).toMatchObject({ allowInsecureHttp: true, redirectUrl: undefined });
    expect(() => loadConfig({ GANTRY_OIDC_PROVIDERS: JSON.stringify({ dev: { ...gitlab, provider_url: 'http://idp.example' } }) })).toThrow(
      /GANTRY_OIDC_PROVIDERS\.dev\.provider_url: provider_url must use https/,
    );
  });

  it('names each bad field and never repeats a secret', () => {
    const run = (value: string) => {
      try {
        loadConfig({ GANTRY_OIDC_PROVIDERS: value });
      } catch (e) {
        return String(e);
      }
      return 'no error';
    };
    expect(run('{not json s3cr3t-value')).toMatch(/GANTRY_OIDC_PROVIDERS: expected a JSON object keyed by provider id/);
    const missing = run(JSON.stringify({ gitlab: { ...gitlab, client_id: undefined, scopes: 's3cr3t-value' } }));
    expect(missing).toMatch(/GANTRY_OIDC_PROVIDERS\.gitlab\.client_id: client_id is required/);
    expect(missing).toMatch(/GANTRY_OIDC_PROVIDERS\.gitlab\.scopes/);
    expect(missing).not.toContain('s3cr3t');
    expect(run(JSON.stringify({ 'bad id!': gitlab }))).toMatch(/provider ids are letters/);
    expect(run('true')).toMatch(/GANTRY_PASSWORD_LOGIN_DISABLED|GANTRY_OIDC_PROVIDERS/);
  });
});
