import { isInventoryUrl } from '@gantry/contracts';
import { safeFetch, SafeFetchError } from '../../platform/safe-fetch.js';

/** The largest inventory a URL may return. */
export const URL_INVENTORY_MAX_BYTES = 4 * 1024 * 1024;
export const URL_INVENTORY_TIMEOUT_MS = 15_000;

/**
 * The text a URL inventory points at, fetched by the server with the SSRF rules of safe-fetch
 * (no private address unless allowed, a time and a size limit). Throws an Error whose message
 * names the problem, never the URL's query (which may carry a token).
 */
export async function readUrlInventory(
  url: string,
  allowedHosts: readonly string[],
  fetch = safeFetch,
): Promise<string> {
  if (!isInventoryUrl(url)) throw new Error('The inventory URL is not an http(s) URL without credentials');
  const shown = redactedUrl(url);
  try {
    const r = await fetch(url, {
      timeoutMs: URL_INVENTORY_TIMEOUT_MS,
      maxBytes: URL_INVENTORY_MAX_BYTES,
      allowedHosts,
    });
    if (r.status < 200 || r.status > 299) throw new Error(`${shown} answered with HTTP ${r.status}`);
    if (!r.body.trim()) throw new Error(`${shown} returned an empty inventory`);
    return r.body;
  } catch (e) {
    if (e instanceof SafeFetchError) throw new Error(`The inventory could not be fetched from ${shown}: ${e.message}`);
    throw e;
  }
}

/** The URL without its query and fragment, for log lines and errors. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'the inventory URL';
  }
}
