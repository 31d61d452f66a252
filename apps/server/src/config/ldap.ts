import fs from 'node:fs';
import { FilterParser } from 'ldapts';
import { z } from 'zod';

/** Sign-in against an LDAP directory (OpenLDAP, Active Directory); see the README's "LDAP / Active Directory". */
export interface LdapConfig {
  /** ldap://host[:port] or ldaps://host[:port]. */
  url: string;
  /** Upgrade an ldap:// connection with StartTLS before anything is sent. */
  startTls: boolean;
  /** PEM certificate(s) trusted for ldaps:// and StartTLS (read at start); undefined: the system's CAs. */
  ca: string | undefined;
  /** The service account that searches the directory; undefined: an anonymous search. */
  bindDn: string | undefined;
  bindPassword: string | undefined;
  searchBase: string;
  /** An RFC 4515 filter with `{login}`, replaced by the escaped login. */
  userFilter: string;
  attributes: {
    /** The login (uid, sAMAccountName): becomes the username. */
    login: string;
    name: string;
    email: string;
    /** The user entry's attribute listing its groups' DNs (memberOf); undefined: not read. */
    groups: string | undefined;
  };
  /** A search for the user's groups (groupOfNames, groupOfUniqueNames...); undefined: none. */
  groupSearch: { base: string; filter: string } | undefined;
  /** An extra filter an entry matching is disabled (beside AD's userAccountControl and ppolicy's lock). */
  disabledFilter: string | undefined;
  /** Each sign-in's directory work ends within this (unreachable: a 503 then). */
  timeoutMs: number;
}

const text = z
  .string()
  .optional()
  .transform((v) => v?.trim() || undefined);

/** The GANTRY_LDAP_* settings besides GANTRY_LDAP_ENABLED (parsed in config.ts's schema). */
export const ldapEnv = {
  GANTRY_LDAP_URL: text,
  GANTRY_LDAP_CA_FILE: text,
  GANTRY_LDAP_BIND_DN: text,
  // Never logged, never repeated in an error message.
  GANTRY_LDAP_BIND_PASSWORD: z.string().optional(),
  GANTRY_LDAP_SEARCH_BASE: text,
  GANTRY_LDAP_USER_FILTER: text,
  GANTRY_LDAP_LOGIN_ATTRIBUTE: text,
  GANTRY_LDAP_NAME_ATTRIBUTE: text,
  GANTRY_LDAP_EMAIL_ATTRIBUTE: text,
  GANTRY_LDAP_GROUP_ATTRIBUTE: z.string().optional(),
  GANTRY_LDAP_GROUP_SEARCH_BASE: text,
  GANTRY_LDAP_GROUP_FILTER: text,
  GANTRY_LDAP_DISABLED_FILTER: text,
  GANTRY_LDAP_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(120).default(5),
};

type LdapEnv = { [K in keyof typeof ldapEnv]?: z.output<(typeof ldapEnv)[K]> } & {
  GANTRY_LDAP_ENABLED: boolean;
  GANTRY_LDAP_STARTTLS: boolean;
  GANTRY_PASSWORD_LOGIN_DISABLED: boolean;
};

const ATTRIBUTE = /^[A-Za-z][A-Za-z0-9-]*$|^\d+(\.\d+)+$/;

/** Whether `filter` (with its placeholders filled) is a filter the client can send. */
function parses(filter: string): boolean {
  try {
    FilterParser.parseString(filter.replaceAll('{login}', 'x').replaceAll('{dn}', 'cn=x'));
    return true;
  } catch {
    return false;
  }
}

/**
 * The LDAP settings, or undefined when GANTRY_LDAP_ENABLED is off. Every bad combination is
 * listed (never a value of the bind password) for the start-up error.
 */
export function toLdapConfig(e: LdapEnv): { config: LdapConfig | undefined; problems: string[] } {
  if (!e.GANTRY_LDAP_ENABLED) return { config: undefined, problems: [] };
  const problems: string[] = [];
  const url = e.GANTRY_LDAP_URL ?? '';
  if (!url) problems.push('GANTRY_LDAP_URL is required when GANTRY_LDAP_ENABLED is on');
  else if (!/^ldaps?:\/\/[^/?#\s]+\/?$/i.test(url))
    problems.push('GANTRY_LDAP_URL must be ldap://host[:port] or ldaps://host[:port]');
  const secure = /^ldaps:/i.test(url);
  const startTls = e.GANTRY_LDAP_STARTTLS;
  if (startTls && secure)
    problems.push('GANTRY_LDAP_STARTTLS is for ldap:// URLs; an ldaps:// connection is encrypted already');
  let ca: string | undefined;
  if (e.GANTRY_LDAP_CA_FILE) {
    if (!secure && !startTls) problems.push('GANTRY_LDAP_CA_FILE needs an ldaps:// URL or GANTRY_LDAP_STARTTLS');
    try {
      ca = fs.readFileSync(e.GANTRY_LDAP_CA_FILE, 'utf8');
      if (!ca.includes('-----BEGIN CERTIFICATE-----')) problems.push('GANTRY_LDAP_CA_FILE must hold PEM certificates');
    } catch {
      problems.push(`GANTRY_LDAP_CA_FILE cannot be read: ${e.GANTRY_LDAP_CA_FILE}`);
    }
  }
  if (e.GANTRY_LDAP_BIND_DN && !e.GANTRY_LDAP_BIND_PASSWORD)
    problems.push('GANTRY_LDAP_BIND_PASSWORD is required with GANTRY_LDAP_BIND_DN');
  if (!e.GANTRY_LDAP_BIND_DN && e.GANTRY_LDAP_BIND_PASSWORD)
    problems.push('GANTRY_LDAP_BIND_DN is required with GANTRY_LDAP_BIND_PASSWORD');
  if (!e.GANTRY_LDAP_SEARCH_BASE) problems.push('GANTRY_LDAP_SEARCH_BASE is required when GANTRY_LDAP_ENABLED is on');
  const loginAttribute = e.GANTRY_LDAP_LOGIN_ATTRIBUTE ?? 'uid';
  const userFilter = e.GANTRY_LDAP_USER_FILTER ?? `(${loginAttribute}={login})`;
  if (!userFilter.includes('{login}')) problems.push('GANTRY_LDAP_USER_FILTER must contain {login}');
  else if (!parses(userFilter)) problems.push('GANTRY_LDAP_USER_FILTER is not a valid LDAP filter');
  const groupAttribute =
    e.GANTRY_LDAP_GROUP_ATTRIBUTE === undefined ? 'memberOf' : e.GANTRY_LDAP_GROUP_ATTRIBUTE.trim() || undefined;
  const groupFilter = e.GANTRY_LDAP_GROUP_FILTER ?? '(|(member={dn})(uniqueMember={dn}))';
  if (e.GANTRY_LDAP_GROUP_FILTER && !e.GANTRY_LDAP_GROUP_SEARCH_BASE)
    problems.push('GANTRY_LDAP_GROUP_FILTER needs GANTRY_LDAP_GROUP_SEARCH_BASE');
  if (e.GANTRY_LDAP_GROUP_SEARCH_BASE) {
    if (!groupFilter.includes('{dn}') && !groupFilter.includes('{login}'))
      problems.push('GANTRY_LDAP_GROUP_FILTER must contain {dn} or {login}');
    else if (!parses(groupFilter)) problems.push('GANTRY_LDAP_GROUP_FILTER is not a valid LDAP filter');
  }
  if (e.GANTRY_LDAP_DISABLED_FILTER && !parses(e.GANTRY_LDAP_DISABLED_FILTER))
    problems.push('GANTRY_LDAP_DISABLED_FILTER is not a valid LDAP filter');
  const attributes = {
    login: loginAttribute,
    name: e.GANTRY_LDAP_NAME_ATTRIBUTE ?? 'cn',
    email: e.GANTRY_LDAP_EMAIL_ATTRIBUTE ?? 'mail',
    groups: groupAttribute,
  };
  for (const [k, v] of Object.entries(attributes)) {
    if (v !== undefined && !ATTRIBUTE.test(v))
      problems.push(`GANTRY_LDAP_${k.toUpperCase()}_ATTRIBUTE is not an attribute name: "${v}"`);
  }
  if (e.GANTRY_PASSWORD_LOGIN_DISABLED)
    problems.push('GANTRY_PASSWORD_LOGIN_DISABLED turns off the sign-in form LDAP uses: turn one of them off');
  if (problems.length) return { config: undefined, problems };
  return {
    config: {
      url,
      startTls,
      ca,
      bindDn: e.GANTRY_LDAP_BIND_DN,
      bindPassword: e.GANTRY_LDAP_BIND_PASSWORD,
      searchBase: e.GANTRY_LDAP_SEARCH_BASE!,
      userFilter,
      attributes,
      groupSearch: e.GANTRY_LDAP_GROUP_SEARCH_BASE
        ? { base: e.GANTRY_LDAP_GROUP_SEARCH_BASE, filter: groupFilter }
        : undefined,
      disabledFilter: e.GANTRY_LDAP_DISABLED_FILTER,
      timeoutMs: (e.GANTRY_LDAP_TIMEOUT_SECONDS ?? 5) * 1000,
    },
    problems,
  };
}
