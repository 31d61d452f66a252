import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import type { WebhookFormat } from '../../../config/audit-export.js';
import type { ExportedAuditEntry, ExportSink } from '../export-sink.js';

const TIMEOUT_MS = 10_000;
/** Splunk's fields for every event Gantry sends. */
export const SPLUNK_SOURCE = 'gantry';
export const SPLUNK_SOURCETYPE = 'gantry:audit';

export interface WebhookTarget {
  url: string;
  format: WebhookFormat;
  /** Sent as `Authorization: Splunk <token>` (splunk) or `Bearer <token>` (json); never shown. */
  token: string | undefined;
  ca: string | undefined;
}

/** The request body of one batch in the webhook's format. */
export function webhookBody(entries: readonly ExportedAuditEntry[], format: WebhookFormat, host: string): string {
  if (format === 'json') return JSON.stringify(entries);
  // Splunk HEC takes several events in one request as JSON objects one after another.
  return entries
    .map((e) =>
      JSON.stringify({
        time: Date.parse(e.time) / 1000,
        host,
        source: SPLUNK_SOURCE,
        sourcetype: SPLUNK_SOURCETYPE,
        event: e,
      }),
    )
    .join('\n');
}

/** The address admins see: no credentials, no query (either may carry a secret). */
export function safeUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

/**
 * POSTs each batch to an HTTP(S) receiver: Gantry's JSON (an array of entries) or Splunk's HTTP
 * Event Collector format. Any answer but 2xx (or no answer within 10 s) is a failure, retried.
 */
export class WebhookSink implements ExportSink {
  readonly kind = 'webhook' as const;
  readonly key = 'webhook';
  readonly format: WebhookFormat;
  readonly target: string;
  private readonly hostname = os.hostname();

  constructor(private readonly t: WebhookTarget) {
    this.format = t.format;
    this.target = safeUrl(t.url);
  }

  send(entries: readonly ExportedAuditEntry[]): Promise<void> {
    const body = webhookBody(entries, this.t.format, this.hostname);
    const url = new URL(this.t.url);
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'user-agent': 'Gantry audit export',
    };
    if (this.t.token) headers.authorization = `${this.t.format === 'splunk' ? 'Splunk' : 'Bearer'} ${this.t.token}`;
    const request = url.protocol === 'https:' ? https.request : http.request;
    return new Promise<void>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers, ca: this.t.ca, timeout: TIMEOUT_MS }, (res) => {
        res.resume();
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          // The answer's body is not repeated: a receiver might echo what it was sent.
          if (status >= 200 && status < 300) resolve();
          else reject(new Error(`the receiver answered HTTP ${status}`));
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
      req.on('error', reject);
      req.end(body);
    });
  }
}
