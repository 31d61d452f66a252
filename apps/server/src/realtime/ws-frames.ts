import { Socket } from 'node:net';
import type { HubSocket } from './hub.js';

const OPEN = 1;
const FIN_TEXT = 0x81;
const EMPTY = Buffer.alloc(0);

/**
 * Text messages as WebSocket frames (RFC 6455 §5.2), back to back in one buffer. Frames a server
 * sends are never masked, so the bytes are the same for every socket: a burst of per-line `log`
 * messages is encoded once and written to each legacy socket as it is. With `prefix`, each
 * message is the prefix followed by its text (the part all of a burst's messages share is not
 * put together again for every line).
 */
export function encodeTextFrames(messages: readonly string[], prefix: Buffer = EMPTY): Buffer {
  const lengths = messages.map((m) => prefix.length + Buffer.byteLength(m));
  let total = 0;
  for (const n of lengths) total += headerSize(n) + n;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < messages.length; i++) {
    const n = lengths[i]!;
    out[at] = FIN_TEXT;
    if (n < 126) {
      out[at + 1] = n;
      at += 2;
    } else if (n < 65536) {
      out[at + 1] = 126;
      out.writeUInt16BE(n, at + 2);
      at += 4;
    } else {
      out[at + 1] = 127;
      out.writeUInt32BE(Math.floor(n / 2 ** 32), at + 2);
      out.writeUInt32BE(n >>> 0, at + 6);
      at += 10;
    }
    at += prefix.copy(out, at);
    at += out.write(messages[i]!, at);
  }
  return out;
}

function headerSize(n: number): number {
  return n < 126 ? 2 : n < 65536 ? 4 : 10;
}

/** What `hubSocketOf` uses of a `ws` WebSocket (the package ships no types). */
export interface WsLike {
  send(data: string): void;
  close(code: number, reason: string): void;
  readonly readyState: number;
  readonly bufferedAmount: number;
  /** The extensions agreed at the handshake, comma-separated; '' for none. */
  readonly extensions: string;
}

/**
 * The hub's view of a `ws` socket, with a way to write many frames at once: per-line messages
 * cost one write of a shared buffer per socket instead of one `send` (a frame, a write, a
 * syscall) per line and socket, the cost that held PostgreSQL's ingest to 36k lines/s with five
 * legacy consoles open.
 *
 * The frames go to the connection `ws` runs on (`raw`: the upgraded request's socket). That is
 * in order with `ws`'s own sends only while `ws` writes each message at once, which it does
 * unless a message is being compressed: the fast path is taken only when no extension
 * (permessage-deflate) was agreed, and only on an open socket. Otherwise, and for connections
 * that are not network sockets (fastify's injectWS), there is no fast path.
 */
export function hubSocketOf(ws: WsLike, raw: unknown): HubSocket {
  const direct = raw instanceof Socket && ws.extensions === '' ? raw : undefined;
  const socket: HubSocket = {
    send: (data) => ws.send(data),
    close: (code, reason) => ws.close(code, reason),
    get readyState() {
      return ws.readyState;
    },
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
  };
  if (direct) {
    socket.sendFrames = (frames) => {
      if (ws.readyState === OPEN && direct.writable) direct.write(frames);
    };
  }
  return socket;
}
