import type { AddressInfo } from 'node:net';

/**
 * How this node's own task processes reach its API (the Terraform HTTP state backend): the
 * address it listens on, on the loopback interface when it listens on all of them; before it
 * listens (or when told nothing), GANTRY_WEB_HOST. Tasks share the server's network, and the
 * loopback address works behind any reverse proxy, TLS or DNS setup.
 */
export class SelfUrl {
  private address: (() => AddressInfo | string | null) | null = null;

  constructor(private readonly webHost: string) {}

  /** Called once the server listens, with how to read its address. */
  listening(address: () => AddressInfo | string | null): void {
    this.address = address;
  }

  /** `http://host:port` without a trailing slash, or null when there is no way to say. */
  get(): string | null {
    const a = this.address?.();
    if (a && typeof a === 'object') {
      const any = a.address === '0.0.0.0' || a.address === '::' || a.address === '';
      const host = any ? '127.0.0.1' : a.family === 'IPv6' ? `[${a.address}]` : a.address;
      return `http://${host}:${a.port}`;
    }
    return this.webHost ? this.webHost.replace(/\/+$/, '') : null;
  }
}
