import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { encodeTextFrames, hubSocketOf, type WsLike } from './ws-frames.js';

/** The `ws` package's frame parser, as a browser-side client runs it (the package ships no types). */
interface Receiver {
  on(event: 'message', fn: (data: Buffer, isBinary: boolean) => void): void;
  on(event: 'error', fn: (err: Error) => void): void;
  write(chunk: Buffer, cb: (err?: Error | null) => void): void;
}
const { Receiver } = createRequire(import.meta.url)('ws') as {
  Receiver: new (options: { isServer: boolean }) => Receiver;
};

/** What a client reads from `bytes`, fed in pieces of `chunk` bytes as the network may cut them. */
async function receive(bytes: Buffer, chunk = bytes.length || 1): Promise<Array<{ text: string; binary: boolean }>> {
  const r = new Receiver({ isServer: false });
  const got: Array<{ text: string; binary: boolean }> = [];
  r.on('message', (data, binary) => got.push({ text: data.toString('utf8'), binary }));
  const failed = new Promise<never>((_, reject) => r.on('error', reject));
  for (let at = 0; at < bytes.length; at += chunk) {
    await Promise.race([
      failed,
      new Promise<void>((resolve, reject) =>
        r.write(bytes.subarray(at, at + chunk), (e) => (e ? reject(e) : resolve())),
      ),
    ]);
  }
  return got;
}

describe('encodeTextFrames', () => {
  it('gives frames a WebSocket client reads back as the same text messages, in order, at every length class', async () => {
    const messages = [
      '',
      'a',
      'x'.repeat(125),
      'y'.repeat(126),
      'z'.repeat(65_535),
      'w'.repeat(65_536),
      'é ✓ 🚀 ütf-8',
      JSON.stringify({ type: 'log', output: 'a "quoted"\nline' }),
    ];
    const bytes = encodeTextFrames(messages);
    expect(await receive(bytes)).toEqual(messages.map((text) => ({ text, binary: false })));
    // Cut at odd places, as TCP delivers it.
    expect((await receive(bytes, 7)).map((m) => m.text)).toEqual(messages);
  });

  it('puts the prefix in front of each message', async () => {
    const head = '{"type":"log","output":';
    const rest = ['"a"}', '"é ✓"}', `"${'x'.repeat(200)}"}`];
    expect((await receive(encodeTextFrames(rest, Buffer.from(head)))).map((m) => m.text)).toEqual(
      rest.map((r) => head + r),
    );
  });

  it('encodes nothing for no messages', () => {
    expect(encodeTextFrames([])).toHaveLength(0);
  });
});

describe('hubSocketOf', () => {
  const ws = (extensions = '', readyState = 1): WsLike & { sent: string[] } => ({
    sent: [],
    send(data) {
      this.sent.push(data);
    },
    close() {},
    readyState,
    bufferedAmount: 0,
    extensions,
  });

  it('writes batched frames only straight to a network socket of a connection without extensions', () => {
    const raw = new Socket();
    expect(hubSocketOf(ws(), raw).sendFrames).toBeTypeOf('function');
    // permessage-deflate: `ws` may hold a message back while compressing it; a direct write would overtake it.
    expect(hubSocketOf(ws('permessage-deflate'), raw).sendFrames).toBeUndefined();
    // fastify's injectWS runs over a stream that is not a socket.
    expect(hubSocketOf(ws(), undefined).sendFrames).toBeUndefined();
    raw.destroy();
  });

  it('sends messages through ws and reports its state', () => {
    const w = ws('', 3);
    const s = hubSocketOf(w, undefined);
    s.send('hello');
    expect(w.sent).toEqual(['hello']);
    expect(s.readyState).toBe(3);
  });
});
