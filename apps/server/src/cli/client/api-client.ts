import { CliError } from './cli-error.js';
import type { Profile } from './profiles.js';

/** The API's answer to a failed request: its `error` text, and the field when it names one. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Calls one Gantry's API with an API token (`Authorization: Bearer`), over Node's fetch. */
export class ApiClient {
  constructor(readonly profile: Profile) {}

  get base(): string {
    return this.profile.url;
  }

  /** JSON in, JSON out; a 204 answers undefined. Throws ApiError with the server's text. */
  async request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.base}/api${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.profile.token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        // A redirect would carry the token to wherever it points: refused, the URL is to be fixed.
        redirect: 'error',
      });
    } catch (err) {
      throw new CliError(`Cannot reach ${this.base}: ${networkReason(err)}`);
    }
    const text = await res.text();
    if (!res.ok) throw new ApiError(res.status, errorText(res.status, text));
    if (!text) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CliError(`${this.base} did not answer JSON (is it a Gantry server?)`);
    }
  }

  get<T = unknown>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }
}

function errorText(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; field?: unknown };
    if (typeof body.error === 'string')
      return typeof body.field === 'string' ? `${body.error} (field: ${body.field})` : body.error;
  } catch {
    // Not the API's JSON (a proxy's page): the status says enough.
  }
  return `HTTP ${status}`;
}

/** fetch hides the cause (ECONNREFUSED, a certificate error) behind "fetch failed". */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED') return 'connection refused';
  if (cause?.code === 'ENOTFOUND') return 'host not found';
  if (cause?.code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(cause.code))
    return `${cause.message ?? cause.code} (for a private CA, set NODE_EXTRA_CA_CERTS to its certificate file)`;
  return cause?.message ?? (err as Error).message;
}
