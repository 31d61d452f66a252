/**
 * Fetches a URL given by a user for the server (dynamic parameter options, URL inventories).
 * STUB (to be replaced by the dynamic-options work): the final version resolves the host, refuses
 * private, loopback and link-local addresses (unless the host is in the admin's allow list),
 * follows no redirect to such an address, stops after `timeoutMs` and past `maxBytes`.
 */
export interface SafeFetchOptions {
  timeoutMs: number;
  maxBytes: number;
}

export interface SafeFetchResult {
  status: number;
  contentType: string | null;
  body: string;
}

/** A refusal or failure with a stable code (`url_invalid`, `url_private_address`, `url_timeout`, `url_too_large`, `url_status`, `url_unreachable`). */
export class SafeFetchError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export async function safeFetch(_url: string, _opts: SafeFetchOptions): Promise<SafeFetchResult> {
  throw new SafeFetchError('Not available yet', 'url_unreachable');
}
