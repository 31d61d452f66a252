import type { LdapConfig } from '../../config/ldap.js';
import {
  DirectoryCredentialsError,
  DirectoryUnavailableError,
  fillFilter,
  type DirectoryClient,
  type DirectoryConnection,
  type DirectoryEntry,
} from './ldap-client.js';

/** What the directory says of a person: their login there, profile and groups (DNs and CNs). */
export interface DirectoryUser {
  dn: string;
  login: string;
  name: string | undefined;
  email: string | undefined;
  groups: string[];
}

/** The outcome of a password check against the directory; `rejected` is an unknown login or a wrong password alike. */
export type DirectoryVerdict =
  | { kind: 'ok'; user: DirectoryUser }
  | { kind: 'rejected' }
  | { kind: 'disabled' }
  | { kind: 'unavailable'; detail: string };

/** A known user's state in the directory now (the periodic check). */
export type DirectoryState = 'active' | 'gone' | 'disabled';

/** AD's userAccountControl flag ACCOUNTDISABLE. */
const UAC_ACCOUNT_DISABLE = 2;

/** The value of a DN's first RDN when it is a cn (`CN=Domain Admins,OU=...` -> `Domain Admins`). */
export function cnOf(dn: string): string | undefined {
  const m = /^\s*cn\s*=\s*((?:\\.|[^,+\\])*)/i.exec(dn);
  if (!m) return undefined;
  const value = m[1]!
    .trim()
    .replace(/\\([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/\\(.)/g, '$1');
  return value || undefined;
}

/**
 * Password checks and look-ups against the LDAP directory: a service bind (or an anonymous one),
 * a search for the login with the user filter (the login escaped), the disabled rules, the groups,
 * then a bind as the entry's DN with the password. Each call ends within the configured timeout.
 */
export class LdapDirectory {
  constructor(
    private readonly config: LdapConfig,
    private readonly client: DirectoryClient,
  ) {}

  /** Checks `password` for the entry the user filter finds for `login`. Never throws. */
  async authenticate(login: string, password: string): Promise<DirectoryVerdict> {
    // A bind with an empty password is an "unauthenticated" bind that many servers accept
    // (RFC 4513 5.1.2): it proves nothing. The login schema refuses it too; this never relies on it.
    if (!password) return { kind: 'rejected' };
    try {
      return await this.session(async (conn) => {
        const entry = await this.findEntry(conn, login);
        if (!entry) return { kind: 'rejected' };
        if (await this.isDisabled(conn, entry)) return { kind: 'disabled' };
        // Groups are read with the service account's rights, before the bind changes them.
        const user = await this.toUser(conn, entry, login);
        try {
          await conn.bind(entry.dn, password);
        } catch (err) {
          if (err instanceof DirectoryCredentialsError) return { kind: 'rejected' };
          throw err;
        }
        return { kind: 'ok', user };
      });
    } catch (err) {
      return { kind: 'unavailable', detail: err instanceof Error ? err.message : String(err) };
    }
  }

  /** The state of each login now, in one connection; throws DirectoryUnavailableError when it cannot tell. */
  states(logins: string[]): Promise<Map<string, DirectoryState>> {
    return this.session(async (conn) => {
      const out = new Map<string, DirectoryState>();
      for (const login of logins) {
        const entry = await this.findEntry(conn, login);
        out.set(login, !entry ? 'gone' : (await this.isDisabled(conn, entry)) ? 'disabled' : 'active');
      }
      return out;
    }, logins.length);
  }

  /**
   * Runs `work` on a connection bound as the service account, closing it after; the whole of it
   * (connect and TLS included) ends within the timeout (times `calls` for batches).
   */
  private async session<T>(work: (conn: DirectoryConnection) => Promise<T>, calls = 1): Promise<T> {
    let conn: DirectoryConnection | undefined;
    let timer: NodeJS.Timeout | undefined;
    let expired = false;
    const limit = this.config.timeoutMs * Math.max(1, calls);
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        reject(new DirectoryUnavailableError(`no answer within ${limit} ms`));
      }, limit);
    });
    const run = async () => {
      const c = await this.client.connect();
      // Opened after the deadline passed: nobody waits for it any more.
      if (expired) {
        await c.close();
        throw new DirectoryUnavailableError('timed out');
      }
      conn = c;
      if (this.config.bindDn) {
        try {
          await c.bind(this.config.bindDn, this.config.bindPassword ?? '');
        } catch (err) {
          // The service account's own credentials: a configuration problem, not the user's.
          if (err instanceof DirectoryCredentialsError)
            throw new DirectoryUnavailableError('the service account (GANTRY_LDAP_BIND_DN) could not bind');
          throw err;
        }
      }
      return work(c);
    };
    try {
      return await Promise.race([run(), deadline]);
    } finally {
      clearTimeout(timer);
      await conn?.close();
    }
  }

  /** The one entry the user filter finds for `login`; none (also when several match). */
  private async findEntry(conn: DirectoryConnection, login: string): Promise<DirectoryEntry | undefined> {
    const { attributes: a } = this.config;
    const wanted = [
      a.login,
      a.name,
      a.email,
      ...(a.groups ? [a.groups] : []),
      'userAccountControl',
      'pwdAccountLockedTime',
    ];
    const entries = await conn.search(
      this.config.searchBase,
      'sub',
      fillFilter(this.config.userFilter, { login }),
      wanted,
    );
    return entries.length === 1 ? entries[0] : undefined;
  }

  /** AD's ACCOUNTDISABLE flag, a ppolicy lock (pwdAccountLockedTime) or GANTRY_LDAP_DISABLED_FILTER matching the entry. */
  private async isDisabled(conn: DirectoryConnection, entry: DirectoryEntry): Promise<boolean> {
    const uac = Number(first(entry, 'userAccountControl'));
    if (Number.isInteger(uac) && (uac & UAC_ACCOUNT_DISABLE) !== 0) return true;
    if (first(entry, 'pwdAccountLockedTime')) return true;
    if (this.config.disabledFilter) {
      const hits = await conn.search(entry.dn, 'base', this.config.disabledFilter, ['1.1']);
      if (hits.length > 0) return true;
    }
    return false;
  }

  private async toUser(conn: DirectoryConnection, entry: DirectoryEntry, typed: string): Promise<DirectoryUser> {
    const { attributes: a, groupSearch } = this.config;
    const login = first(entry, a.login) ?? typed;
    const dns = new Set<string>(a.groups ? (entry.attributes[a.groups.toLowerCase()] ?? []) : []);
    const cns = new Set<string>();
    if (groupSearch) {
      const filter = fillFilter(groupSearch.filter, { dn: entry.dn, login });
      for (const g of await conn.search(groupSearch.base, 'sub', filter, ['cn'])) {
        dns.add(g.dn);
        for (const cn of g.attributes.cn ?? []) cns.add(cn);
      }
    }
    for (const dn of dns) {
      const cn = cnOf(dn);
      if (cn) cns.add(cn);
    }
    return {
      dn: entry.dn,
      login,
      name: first(entry, a.name),
      email: first(entry, a.email),
      groups: [...dns, ...[...cns].filter((c) => !dns.has(c))],
    };
  }
}

function first(entry: DirectoryEntry, attribute: string): string | undefined {
  const v = entry.attributes[attribute.toLowerCase()]?.[0]?.trim();
  return v || undefined;
}
