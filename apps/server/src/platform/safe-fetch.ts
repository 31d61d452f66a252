import { ErrorCodes } from '@gantry/contracts';
import { promises as dns } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { canonicalAddress, isBlockedAddress } from './ip-ranges.js';

/**
 * Fetches a URL given by a user for the server (dynamic parameter options, URL inventories) without
 * letting it reach what only the server can (SSRF): http(s) only, no credentials in or with the
 * request; the host is resolved once and every address checked (ip-ranges.ts) unless the admin
 * allowed the host (GANTRY_FETCH_ALLOWED_HOSTS); the connection goes to the checked address (a
 * second DNS answer cannot swap in another: no rebinding); a redirect is followed only to a URL
 * that passes the same checks, at most MAX_REDIRECTS; one deadline for the whole fetch; the body
 * stops at `maxBytes`.
 */
export interface SafeFetchOptions {
  /** For the whole fetch: DNS, connection, redirects and body. */
  timeoutMs: number;
  /** The largest body accepted (a larger one fails with `url_too_large`). */
  maxBytes: number;
  /**
   * Host names or IP addresses the admin allows even when private or local (config
   * `fetchAllowedHosts`, from GANTRY_FETCH_ALLOWED_HOSTS). Absent: none.
   */
  allowedHosts?: readonly string[];
  /** GET by default; deliveries POST. */
  method?: 'GET' | 'POST';
  /** Headers to send besides `user-agent` (a caller's wins) — only what the caller means to send. */
  headers?: Record<string, string>;
  /** The request body (POST). */
  body?: string;
  /**
   * Default true. False: a 3xx is the answer (a delivery's receiver must not send the request,
   * with its signature or token, to another host), handled like any other non-2xx status.
   */
  followRedirects?: boolean;
  /** Default false. True: any status is answered as a result instead of failing with `url_status`. */
  anyStatus?: boolean;
  /** Test hook: resolves a host name (default: the system resolver, every address). */
  resolve?: (host: string) => Promise<Array<{ address: string; family: number }>>;
}

export interface SafeFetchResult {
  status: number;
  contentType: string | null;
  body: string;
}

/** A refusal or failure with a stable code (ErrorCodes `url_*`); the message never carries the body. */
export class SafeFetchError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

type Hop = { kind: 'redirect'; location: string } | { kind: 'done'; result: SafeFetchResult };

/** Fetches `url` under the rules above; fails with a SafeFetchError (never another error). */
export async function safeFetch(url: string, opts: SafeFetchOptions): Promise<SafeFetchResult> {
  const allowed = new Set((opts.allowedHosts ?? []).map(canonicalAddress));
  const controller = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  // The system resolver cannot be cancelled: the deadline answers without waiting for it.
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
      reject(timeoutError(opts.timeoutMs));
    }, opts.timeoutMs);
  });
  const fetchAll = async (): Promise<SafeFetchResult> => {
    let target = parseTarget(url);
    for (let hop = 0; ; hop += 1) {
      const pinned = await checkedAddress(target, allowed, opts.resolve ?? systemResolve);
      if (timedOut) throw timeoutError(opts.timeoutMs);
      const answer = await request(target, pinned, opts, controller.signal);
      if (answer.kind === 'done') return answer.result;
      if (hop >= MAX_REDIRECTS)
        throw new SafeFetchError(`More than ${MAX_REDIRECTS} redirects`, ErrorCodes.urlRedirects);
      target = parseTarget(answer.location, target);
    }
  };
  try {
    return await Promise.race([fetchAll(), deadline]);
  } catch (e) {
    if (timedOut) throw timeoutError(opts.timeoutMs);
    if (e instanceof SafeFetchError) throw e;
    throw new SafeFetchError(`Could not fetch the URL: ${(e as Error).message}`, ErrorCodes.urlUnreachable);
  } finally {
    clearTimeout(timer);
  }
}

function timeoutError(ms: number): SafeFetchError {
  return new SafeFetchError(`The URL did not answer within ${ms / 1000} s`, ErrorCodes.urlTimeout);
}

/** An http(s) URL without credentials (relative to `base` for a redirect's Location). */
function parseTarget(text: string, base?: URL): URL {
  let target: URL;
  try {
    target = new URL(text, base);
  } catch {
    throw new SafeFetchError('The URL is not valid', ErrorCodes.urlInvalid);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new SafeFetchError('Only http and https URLs can be fetched', ErrorCodes.urlInvalid);
  if (target.username || target.password)
    throw new SafeFetchError('The URL must not carry a user name or password', ErrorCodes.urlInvalid);
  if (!target.hostname) throw new SafeFetchError('The URL has no host', ErrorCodes.urlInvalid);
  return target;
}

async function systemResolve(host: string): Promise<Array<{ address: string; family: number }>> {
  return dns.lookup(host, { all: true, verbatim: true });
}

/**
 * The address to connect to: the host's, once every address it resolves to passed (a name with
 * one private address among public ones is refused: the resolver could pick that one next time).
 */
async function checkedAddress(
  target: URL,
  allowed: Set<string>,
  resolve: NonNullable<SafeFetchOptions['resolve']>,
): Promise<{ address: string; family: number }> {
  const host = target.hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new SafeFetchError(`Host ${host} could not be resolved`, ErrorCodes.urlUnreachable);
    }
  }
  if (addresses.length === 0) throw new SafeFetchError(`Host ${host} could not be resolved`, ErrorCodes.urlUnreachable);
  if (!allowed.has(canonicalAddress(host))) {
    const refused = addresses.some((a) => isBlockedAddress(a.address) && !allowed.has(canonicalAddress(a.address)));
    if (refused)
      throw new SafeFetchError(
        `Host ${host} is a private, local or reserved address; an admin may allow it (GANTRY_FETCH_ALLOWED_HOSTS)`,
        ErrorCodes.urlPrivateAddress,
      );
  }
  return addresses[0]!;
}

/** One request to the pinned address; a redirect is handed back to be checked like the first URL. */
function request(
  target: URL,
  pinned: { address: string; family: number },
  opts: SafeFetchOptions,
  signal: AbortSignal,
): Promise<Hop> {
  const { maxBytes } = opts;
  const follow = opts.followRedirects ?? true;
  // The connection goes to the checked address whatever the resolver says now (the Host header
  // and TLS name stay the URL's). Node asks with `all` when it races address families.
  const lookup = (_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<Hop>((resolve, reject) => {
    const req = client.request(
      target,
      {
        method: opts.method ?? 'GET',
        // No cookies, no authorization, no proxy: nothing of the server's goes with the request
        // (headers are only the caller's own, e.g. a delivery's token for its receiver).
        headers: {
          accept: 'application/json, text/plain;q=0.9, */*;q=0.5',
          'user-agent': 'Gantry',
          ...opts.headers,
          ...(opts.body !== undefined ? { 'content-length': String(Buffer.byteLength(opts.body)) } : {}),
        },
        agent: false,
        lookup: lookup as unknown as net.LookupFunction,
        signal,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (follow && REDIRECTS.has(status) && res.headers.location) {
          res.resume();
          resolve({ kind: 'redirect', location: res.headers.location });
          return;
        }
        if (!opts.anyStatus && (status < 200 || status > 299)) {
          res.resume();
          reject(new SafeFetchError(`The URL answered with status ${status}`, ErrorCodes.urlStatus));
          return;
        }
        const tooLarge = () =>
          new SafeFetchError(`The answer is larger than ${maxBytes} bytes`, ErrorCodes.urlTooLarge);
        if (Number(res.headers['content-length'] ?? 0) > maxBytes) {
          res.destroy();
          reject(tooLarge());
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy();
            reject(tooLarge());
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({
            kind: 'done',
            result: {
              status,
              contentType: res.headers['content-type'] ?? null,
              body: Buffer.concat(chunks).toString('utf8'),
            },
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}
