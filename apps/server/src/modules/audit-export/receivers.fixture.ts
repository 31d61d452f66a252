// Local receivers for the export tests: syslog over UDP, TCP and TLS, and an HTTP(S) collector.
// Each can go down (its port closed, its connections cut) and come back on the same port.
import dgram from 'node:dgram';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';

export interface Receiver<T> {
  port: number;
  /** Everything received, in order of arrival. */
  received: T[];
  /** Closes the port and cuts open connections: senders get refused until `up()`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/** Splits an RFC 6587 octet-counted stream into messages; answers what is left over (a frame cut short). */
function frames(buffer: string, out: string[]): string {
  let rest = Buffer.from(buffer, 'utf8');
  for (;;) {
    const space = rest.indexOf(0x20);
    if (space < 0) break;
    const len = Number(rest.subarray(0, space).toString());
    if (!Number.isInteger(len) || rest.length < space + 1 + len) break;
    out.push(rest.subarray(space + 1, space + 1 + len).toString('utf8'));
    rest = rest.subarray(space + 1 + len);
  }
  return rest.toString('utf8');
}

/** A syslog receiver: `udp` (one message a datagram) or `tcp`/`tls` (octet counting). */
export async function startSyslogReceiver(
  kind: 'udp' | 'tcp' | 'tls',
  certificate?: { cert: string; key: string },
): Promise<Receiver<string>> {
  const received: string[] = [];
  if (kind === 'udp') {
    let socket: dgram.Socket | undefined;
    let port = 0;
    const up = async () => {
      socket = dgram.createSocket('udp4');
      socket.on('message', (m) => received.push(m.toString('utf8')));
      await new Promise<void>((resolve) => socket!.bind(port, '127.0.0.1', resolve));
      port = socket.address().port;
    };
    const down = () => new Promise<void>((resolve) => (socket ? socket.close(() => resolve()) : resolve()));
    await up();
    return { port, received, up, down, close: down };
  }
  const sockets = new Set<net.Socket>();
  const onConnection = (s: net.Socket) => {
    sockets.add(s);
    let pending = '';
    s.setEncoding('utf8');
    s.on('data', (d: string) => (pending = frames(pending + d, received)));
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  };
  let server: net.Server | undefined;
  let port = 0;
  const up = async () => {
    server =
      kind === 'tls'
        ? tls.createServer({ cert: certificate!.cert, key: certificate!.key }, onConnection)
        : net.createServer(onConnection);
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  };
  const down = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  };
  await up();
  return {
    get port() {
      return port;
    },
    received,
    up,
    down,
    close: down,
  };
}

export interface HttpDelivery {
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

/** An HTTP (or, with a certificate, HTTPS) receiver that keeps every POST and answers `status()` (default 200). */
export async function startHttpCollector(
  certificate?: { cert: string; key: string },
  status: () => number = () => 200,
): Promise<Receiver<HttpDelivery>> {
  const received: HttpDelivery[] = [];
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const code = status();
      if (code < 300)
        received.push({
          authorization: req.headers.authorization,
          contentType: req.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
        });
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end('{"text":"Success","code":0}');
    });
  };
  let server: http.Server | undefined;
  let port = 0;
  const up = async () => {
    server = certificate
      ? https.createServer({ cert: certificate.cert, key: certificate.key }, handler)
      : http.createServer(handler);
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  };
  const down = async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  };
  await up();
  return {
    get port() {
      return port;
    },
    received,
    up,
    down,
    close: down,
  };
}
