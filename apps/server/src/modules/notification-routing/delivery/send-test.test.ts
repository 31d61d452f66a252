import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, startHttpReceiver, type HttpReceiver } from '../../../test/http-receiver.js';
import { sendTest } from './send-test.js';
import { destination } from './test-payload.js';

const ctx = { allowedHosts: ['127.0.0.1'], now: () => new Date('2026-01-02T00:00:00Z'), timeoutMs: 3000 };

let receiver: HttpReceiver;
let status = 200;
beforeAll(async () => {
  receiver = await startHttpReceiver(() => status);
});
afterAll(() => receiver.close());

describe('sendTest', () => {
  it("sends a test notification now and answers the receiver's reply", async () => {
    const dest = destination('slack', {}, { url: `${receiver.url}/hook/KEY123` });
    const r = await sendTest(dest, ctx, { id: 7, name: 'Shop' });
    expect(r).toEqual({ ok: true, http_status: 200, response: '{"ok":true}', error: null });
    const text = (receiver.requests.at(-1)!.json as { text: string }).text;
    expect(text).toContain('Test notification from Gantry');
    expect(text).toContain('My slack');
  });

  it('answers a refusal or an unreachable receiver without throwing or naming the secret', async () => {
    status = 403;
    const dest = destination('slack', {}, { url: `${receiver.url}/hook/KEY123` });
    const refused = await sendTest(dest, ctx, null);
    expect(refused).toMatchObject({ ok: false, http_status: 403 });
    expect(refused.error).toContain('403');
    status = 200;
    const down = destination(
      'telegram',
      { chat_id: '1', api_url: `http://127.0.0.1:${await closedPort()}` },
      { token: 'TGtoken999' },
    );
    const r = await sendTest(down, ctx, null);
    expect(r.ok).toBe(false);
    expect(r.http_status).toBeNull();
    expect(JSON.stringify(r)).not.toContain('TGtoken999');
  });
});
