import http from 'node:http';
import type net from 'node:net';

export interface JsonServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Paths asked for, in order. */
  hits: string[];
  /** Sets what a path answers (a handler gets the raw response). */
  route(path: string, handler: (res: http.ServerResponse) => void): void;
  close(): Promise<void>;
}

/** Answers `body` as JSON with `status`. */
export const json =
  (body: unknown, status = 200) =>
  (res: http.ServerResponse): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

/** Redirects to `location`. */
export const redirect =
  (location: string, status = 302) =>
  (res: http.ServerResponse): void => {
    res.writeHead(status, { location });
    res.end();
  };

/** A local HTTP server for URL-fetching tests (dynamic options, URL inventories); unknown paths answer 404. */
export async function startJsonServer(): Promise<JsonServer> {
  const routes = new Map<string, (res: http.ServerResponse) => void>();
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const path = req.url ?? '';
    hits.push(path);
    const handler = routes.get(path);
    if (handler) handler(res);
    else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    route: (path, handler) => void routes.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
