// A TCP proxy a test can cut and restore, standing between a server and its database (or the
// bus): a database outage, a failover or a flapping network without touching the shared database
// server the rest of the suite uses.
import net from 'node:net';

export interface TcpProxy {
  /** The port to connect to instead of the target's. */
  port: number;
  /** Rewrites a database URL's host and port to go through the proxy. */
  url(target: string): string;
  /** Cuts every open connection at once and refuses new ones (the database went away). */
  cut(): void;
  /** Accepts and forwards connections again (the database is back). */
  restore(): void;
  /** Connections forwarded so far (opened through the proxy since it started). */
  readonly opened: number;
  close(): Promise<void>;
}

/** Starts a proxy on a free local port forwarding to `host:port`. */
export async function startTcpProxy(host: string, port: number): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  let up = true;
  let opened = 0;
  const server = net.createServer((client) => {
    if (!up) {
      client.destroy();
      return;
    }
    opened++;
    const upstream = net.connect(port, host);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  const cut = () => {
    up = false;
    for (const s of open) s.destroy();
    open.clear();
  };
  return {
    port: address.port,
    url(target) {
      const u = new URL(target);
      u.hostname = '127.0.0.1';
      u.port = String(address.port);
      return u.toString();
    },
    cut,
    restore() {
      up = true;
    },
    get opened() {
      return opened;
    },
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
