import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';

export interface BackendRelay {
  /** The Unix socket the sandbox shows the task (on 127.0.0.1 of its own network, via tcp-forward.mjs). */
  socket: string;
  close(): Promise<void>;
}

/** Unix socket paths are limited to 107 bytes on Linux. */
const MAX_SOCKET_PATH = 107;

/**
 * A task in its own network namespace cannot reach Gantry's port (nor anything else on the host's
 * loopback). Its Terraform HTTP backend is relayed instead: an HTTP server on a Unix socket that
 * only this task's sandbox shows, forwarding requests for exactly `allowedPath` (its state's
 * address) to the server, and refusing every other path with 403.
 */
export async function startBackendRelay(socketDir: string, name: string, target: string, allowedPath: string): Promise<BackendRelay> {
  fs.mkdirSync(socketDir, { recursive: true, mode: 0o700 });
  const socket = path.join(socketDir, `${name}.sock`);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) throw new Error(`The task folder's path is too long for the Terraform backend relay socket (${socket})`);
  fs.rmSync(socket, { force: true });
  const base = new URL(target);
  const client = base.protocol === 'https:' ? https : http;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://relay');
    if (url.pathname !== allowedPath) {
      res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":"Only this task\'s state backend is reachable"}');
      req.resume();
      return;
    }
    const headers = { ...req.headers, host: base.host };
    delete headers.connection;
    const upstream = client.request(
      new URL(`${base.pathname.replace(/\/+$/, '')}${url.pathname}${url.search}`, base),
      { method: req.method, headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end('{"error":"Gantry did not answer"}');
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => resolve());
  });
  // The folder is the server's own (0700); inside the sandbox the task's user must connect.
  fs.chmodSync(socket, 0o666);
  return {
    socket,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        fs.rmSync(socket, { force: true });
      }),
  };
}
