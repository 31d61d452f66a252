import http from 'node:http';
import type net from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  contentType: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: unknown;
  /** The headers as received (names in lower case). */
  headers: http.IncomingHttpHeaders;
  /** The raw body. */
  body: string;
}

export interface HttpReceiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** An HTTP server for tests that keeps every request; `statusFor` picks the answer by path (default 200). */
export async function startHttpReceiver(statusFor: (path: string) => number = () => 200): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        json,
        headers: req.headers,
        body: text,
      });
      const status = statusFor(req.url ?? '');
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status < 300 ? { ok: true } : { ok: false, description: 'refused by the test receiver' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A local port with nothing listening on it (connections are refused). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
