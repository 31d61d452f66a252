import type { Generated } from 'kysely';

/** An external user's identity at a sign-in provider: (provider, issuer, subject) is unique. */
export interface ExternalIdentityTable {
  id: Generated<number>;
  /** The provider's id in GANTRY_OIDC_PROVIDERS. */
  provider: string;
  /** The id_token's `iss`. */
  issuer: string;
  /** The id_token's `sub`. */
  subject: string;
  user_id: number;
  created: string;
}

/** A user who signs in against the LDAP directory (migration 023). */
export interface LdapUserTable {
  user_id: number;
  /** Where the entry was found at the last sign-in. */
  dn: string;
  /** The directory's login attribute value: the user filter's `{login}` when looked up again. */
  login: string;
  created: string;
  last_sign_in: string;
}

export interface IdentityMappingTable {
  id: Generated<number>;
  source: string;
  group_name: string;
  admin: number;
  project_id: number | null;
  role: string | null;
  created: string;
}

export interface IdentityAdminGrantTable {
  user_id: number;
  source: string;
  group_name: string;
}
