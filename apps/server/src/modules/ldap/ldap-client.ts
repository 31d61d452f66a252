import net from 'node:net';
import { Client, InvalidCredentialsError, type Entry } from 'ldapts';
import type { LdapConfig } from '../../config/ldap.js';

/** One directory entry: its DN and the asked attributes' values (always lists of text). */
export interface DirectoryEntry {
  dn: string;
  attributes: Record<string, string[]>;
}

/** The directory did not answer in time, refused the connection or TLS, or failed otherwise (not a credential problem). */
export class DirectoryUnavailableError extends Error {}

/** A bind was refused for its credentials (wrong password, unknown DN, locked by the server). */
export class DirectoryCredentialsError extends Error {}

/** One connection to the directory; every method's failures are one of the two errors above. */
export interface DirectoryConnection {
  bind(dn: string, password: string): Promise<void>;
  search(
    base: string,
    scope: 'base' | 'sub',
    filter: string,
    attributes: string[],
    sizeLimit?: number,
  ): Promise<DirectoryEntry[]>;
  close(): Promise<void>;
}

/** Opens connections (StartTLS done when configured); the only door to ldapts. */
export interface DirectoryClient {
  connect(): Promise<DirectoryConnection>;
}

/**
 * RFC 4515 escaping of a value put into a filter: `*`, `(`, `)`, `\` and NUL become `\2a`, `\28`,
 * `\29`, `\5c`, `\00`, so a login never changes the filter's structure.
 */
export function escapeFilterValue(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[*()\\\u0000]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** `template` with each `{name}` replaced by its escaped value. */
export function fillFilter(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? escapeFilterValue(values[name]!) : whole,
  );
}

function toText(v: Entry[string]): string[] {
  const list = Array.isArray(v) ? v : [v];
  return list.map((x) => (Buffer.isBuffer(x) ? x.toString('utf8') : String(x)));
}

/** Failures of the credentials themselves; everything else means the directory cannot be used now. */
function classify(err: unknown): Error {
  if (err instanceof InvalidCredentialsError) return new DirectoryCredentialsError('invalid credentials');
  if (err instanceof DirectoryUnavailableError || err instanceof DirectoryCredentialsError) return err;
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return new DirectoryUnavailableError(message.split('\n')[0]!.slice(0, 200));
}

/** The ldapts client for `config`: timeouts on connect and each operation, the CA for TLS. */
export function ldaptsClient(config: LdapConfig): DirectoryClient {
  const tlsOptions = config.ca ? { ca: config.ca } : {};
  return {
    async connect() {
      const client = new Client({
        url: config.url,
        timeout: config.timeoutMs,
        connectTimeout: config.timeoutMs,
        // Only for ldaps://: given with an ldap:// URL, ldapts would speak TLS before StartTLS asks for it.
        ...(/^ldaps:/i.test(config.url) ? { tlsOptions } : {}),
        strictDN: false,
      });
      const close = () => client.unbind().catch(() => undefined);
      if (config.startTls) {
        try {
          // The certificate is checked against the URL's host; SNI carries names only, never addresses.
          const host = new URL(config.url).hostname.replace(/^\[|\]$/g, '');
          await client.startTLS({ ...tlsOptions, host, ...(net.isIP(host) ? {} : { servername: host }) });
        } catch (err) {
          await close();
          throw classify(err);
        }
      }
      return {
        async bind(dn, password) {
          // An empty password is an anonymous bind (RFC 4513 5.1.2): never a proof of anything.
          if (!password) throw new DirectoryCredentialsError('empty password');
          try {
            await client.bind(dn, password);
          } catch (err) {
            throw classify(err);
          }
        },
        async search(base, scope, filter, attributes, sizeLimit = 0) {
          try {
            const { searchEntries } = await client.search(base, { scope, filter, attributes, sizeLimit });
            return searchEntries.map((e) => {
              const out: Record<string, string[]> = {};
              for (const [k, v] of Object.entries(e)) if (k !== 'dn') out[k.toLowerCase()] = toText(v);
              return { dn: e.dn, attributes: out };
            });
          } catch (err) {
            throw classify(err);
          }
        },
        close,
      };
    },
  };
}
