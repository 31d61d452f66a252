import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config.js';
import { claimGroups } from '../auth/oidc.service.js';

describe('groups from OIDC claims', () => {
  it.each([
    [{ groups: ['a', ' b ', 3, ''] }, 'groups', ['a', 'b']],
    [{ groups: 'ops' }, 'groups', ['ops']],
    [{ realm_access: { roles: ['x', 'y'] } }, 'realm_access.roles', ['x', 'y']],
    [{ realm_access: ['x'] }, 'realm_access.roles', []],
    [{ roles: { admin: true } }, 'roles', []],
    [{}, 'groups', []],
    [{ groups: null }, 'groups.x', []],
  ])('reads %o at %s', (claims, path, groups) => {
    expect(claimGroups(claims as Record<string, unknown>, path)).toEqual(groups);
  });

  it('takes a dotted claim path per provider, and refuses a malformed one', () => {
    const base = { display_name: 'IdP', provider_url: 'https://idp.example', client_id: 'c', client_secret: 's' };
    const config = loadConfig({
      GANTRY_OIDC_PROVIDERS: JSON.stringify({ kc: { ...base, groups_claim: 'realm_access.roles' }, plain: base }),
    });
    expect(config.oidcProviders.map((p) => p.groupsClaim)).toEqual(['realm_access.roles', undefined]);
    expect(() =>
      loadConfig({ GANTRY_OIDC_PROVIDERS: JSON.stringify({ kc: { ...base, groups_claim: 'realm_access..roles' } }) }),
    ).toThrow(/groups_claim/);
  });
});
