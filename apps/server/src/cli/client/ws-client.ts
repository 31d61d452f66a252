import WebSocket from 'ws';

/** An open socket: text messages in, text messages out. */
export interface TextSocket {
  send(text: string): void;
  close(): void;
  onMessage(fn: (text: string) => void): void;
  /** Called once when the socket ends, whoever ended it. */
  onClose(fn: () => void): void;
}

/**
 * Opens a WebSocket with headers (the bearer token: a browser-style WebSocket cannot send one).
 * HTTPS goes through Node's TLS, so NODE_EXTRA_CA_CERTS applies as for fetch; redirects are not
 * followed, so the token never goes to another address.
 */
export function connectWebSocket(url: URL, headers: Record<string, string>, timeoutMs = 10_000): Promise<TextSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, handshakeTimeout: timeoutMs, followRedirects: false });
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      reject(new Error(`WebSocket refused: HTTP ${res.statusCode}`));
      ws.terminate();
    });
    ws.once('error', reject);
    ws.once('open', () => {
      ws.off('error', reject);
      // Later errors end the socket; `close` follows and the caller hears it there.
      ws.on('error', () => undefined);
      resolve({
        send: (text) => ws.send(text),
        close: () => ws.close(),
        onMessage: (fn) => ws.on('message', (data, isBinary) => !isBinary && fn(data.toString())),
        onClose: (fn) => ws.once('close', () => fn()),
      });
    });
  });
}
