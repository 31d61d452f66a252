import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, startHttpReceiver, type HttpReceiver } from '../../../../test/http-receiver.js';
import { verifySignature } from '../signature.js';
import { destination, failure, samplePayload } from '../test-payload.js';
import { sendNotification, type SenderContext } from './index.js';

const NOW = new Date('2026-01-02T03:04:10.000Z');
const ctx: SenderContext = { allowedHosts: ['127.0.0.1'], now: () => NOW, timeoutMs: 3000 };

let receiver: HttpReceiver;
let status = 200;
beforeAll(async () => {
  receiver = await startHttpReceiver(() => status);
});
afterAll(() => receiver.close());
afterEach(() => {
  receiver.requests.length = 0;
  status = 200;
});

const last = () => receiver.requests.at(-1)!;

describe('chat senders', () => {
  it('slack posts {text}', async () => {
    const r = await sendNotification(
      destination('slack', {}, { url: `${receiver.url}/services/T/B/x` }),
      samplePayload(),
      ctx,
    );
    expect(r.httpStatus).toBe(200);
    expect(last()).toMatchObject({ method: 'POST', path: '/services/T/B/x', contentType: 'application/json' });
    expect(last().json).toEqual({ text: samplePayload().message.text });
  });

  it('teams posts a MessageCard', async () => {
    await sendNotification(destination('teams', {}, { url: `${receiver.url}/teams` }), samplePayload(), ctx);
    expect(last().json).toEqual({
      '@type': 'MessageCard',
      '@context': 'http://schema.org/extensions',
      summary: 'Task #99 of Deploy failed',
      title: 'Task #99 of Deploy failed',
      text: 'Project Shop, by alice  \nhttps://gantry.example/project/7/templates/12?t=99',
      themeColor: 'D9534F',
    });
  });

  it('discord posts {content} cut at 2000 characters, pinging no one', async () => {
    const long = samplePayload({ message: { ...samplePayload().message, text: `@everyone ${'x'.repeat(3000)}` } });
    await sendNotification(destination('discord', {}, { url: `${receiver.url}/api/webhooks/1/abc` }), long, ctx);
    const body = last().json as { content: string; allowed_mentions: unknown };
    expect(body.content).toHaveLength(2000);
    expect(body.allowed_mentions).toEqual({ parse: [] });
  });

  it('mattermost posts {text, channel, username}', async () => {
    const dest = destination('mattermost', { channel: 'ops', username: 'gantry' }, { url: `${receiver.url}/hooks/k` });
    await sendNotification(dest, samplePayload(), ctx);
    expect(last().json).toEqual({ text: samplePayload().message.text, channel: 'ops', username: 'gantry' });
  });

  it('telegram posts sendMessage to the bot path', async () => {
    const dest = destination(
      'telegram',
      { chat_id: '-100123', api_url: `${receiver.url}/` },
      { token: '123:ABCsecret' },
    );
    await sendNotification(dest, samplePayload(), ctx);
    expect(last().path).toBe('/bot123:ABCsecret/sendMessage');
    expect(last().json).toEqual({
      chat_id: '-100123',
      text: samplePayload().message.text,
      disable_web_page_preview: true,
    });
  });

  it('gotify posts /message with the key header, priority 8 for a failure, 5 otherwise', async () => {
    const dest = destination('gotify', { url: `${receiver.url}/` }, { token: 'AppToken123' });
    await sendNotification(dest, samplePayload(), ctx);
    expect(last().path).toBe('/message');
    expect(last().headers['x-gotify-key']).toBe('AppToken123');
    expect(last().json).toEqual({
      title: 'Task #99 of Deploy failed',
      message: samplePayload().message.text,
      priority: 8,
    });
    await sendNotification(dest, samplePayload({ event: 'task_succeeded' }), ctx);
    expect((last().json as { priority: number }).priority).toBe(5);
  });

  it('ntfy posts the text to the topic with title, priority, tags, click and token headers', async () => {
    const dest = destination('ntfy', { url: receiver.url, topic: 'deploys' }, { token: 'tk_abcdef' });
    await sendNotification(dest, samplePayload(), ctx);
    const req = last();
    expect(req.path).toBe('/deploys');
    expect(req.body).toBe(samplePayload().message.text);
    expect(req.headers).toMatchObject({
      title: 'Task #99 of Deploy failed',
      priority: '4',
      tags: 'x',
      click: 'https://gantry.example/project/7/templates/12?t=99',
      authorization: 'Bearer tk_abcdef',
    });
    // Text that is not ASCII travels RFC 2047-encoded; no token, no Authorization.
    const plain = destination('ntfy', { url: receiver.url, topic: 'deploys' }, {});
    await sendNotification(
      plain,
      samplePayload({ event: 'task_succeeded', message: { ...samplePayload().message, title: 'Déploiement réussi' } }),
      ctx,
    );
    expect(last().headers.title).toBe(`=?UTF-8?B?${Buffer.from('Déploiement réussi').toString('base64')}?=`);
    expect(last().headers.priority).toBe('3');
    expect(last().headers.authorization).toBeUndefined();
  });
});

describe('pagerduty', () => {
  const pd = () => destination('pagerduty', { api_url: `${receiver.url}/v2/enqueue` }, { routing_key: 'R0UTINGKEY' });

  it('triggers on a failure with the Events API v2 shape and a per-template dedup key', async () => {
    status = 202;
    const r = await sendNotification(pd(), samplePayload(), ctx);
    expect(r.httpStatus).toBe(202);
    expect(last().path).toBe('/v2/enqueue');
    expect(last().json).toEqual({
      routing_key: 'R0UTINGKEY',
      event_action: 'trigger',
      dedup_key: 'gantry-7-template-12',
      payload: {
        summary: 'Task #99 of Deploy failed',
        source: 'gantry',
        severity: 'error',
        timestamp: '2026-01-02T03:04:05.000Z',
        component: 'Deploy',
        group: 'Shop',
        custom_details: expect.objectContaining({ event: 'task_failed', task_id: 99, status: 'error', branch: 'main' }),
      },
      links: [{ href: 'https://gantry.example/project/7/templates/12?t=99', text: 'Open in Gantry' }],
    });
  });

  it('resolves on fixed and succeeded with only the key fields', async () => {
    status = 202;
    for (const event of ['task_fixed', 'task_succeeded'] as const) {
      await sendNotification(pd(), samplePayload({ event }), ctx);
      expect(last().json).toEqual({
        routing_key: 'R0UTINGKEY',
        event_action: 'resolve',
        dedup_key: 'gantry-7-template-12',
      });
    }
  });

  it('keys a runner and a drift by their own subject', async () => {
    status = 202;
    await sendNotification(
      pd(),
      samplePayload({
        event: 'runner_offline',
        template: null,
        task: null,
        runner: { id: 4, name: 'r', last_seen: null },
      }),
      ctx,
    );
    expect((last().json as { dedup_key: string }).dedup_key).toBe('gantry-runner-4');
    await sendNotification(pd(), samplePayload({ event: 'drift', drift: { workspace: null, changes: null } }), ctx);
    expect(last().json).toMatchObject({ dedup_key: 'gantry-7-drift-12', payload: { severity: 'warning' } });
  });
});

describe('webhook', () => {
  const secret = 'whsec_0123456789abcdef';

  it('posts the payload as JSON, signed, with event and delivery headers', async () => {
    const dest = destination('webhook', {}, { url: `${receiver.url}/in?key=k1`, secret });
    await sendNotification(dest, samplePayload(), ctx);
    const req = last();
    expect(req.path).toBe('/in?key=k1');
    expect(req.json).toEqual(samplePayload());
    expect(req.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Gantry',
      'x-gantry-event': 'task_failed',
      'x-gantry-delivery': 'delivery-1',
    });
    const signature = String(req.headers['x-gantry-signature']);
    expect(signature).toMatch(/^t=1767323050,v1=[0-9a-f]{64}$/);
    expect(verifySignature(secret, signature, req.body, NOW.getTime() / 1000)).toBe(true);
    expect(verifySignature('another-secret-000', signature, req.body, NOW.getTime() / 1000)).toBe(false);
  });

  it('renders the payload template with the content type given, and signs what it sends', async () => {
    const template = '{"text": "{{ message.title }} ({{ task.status }})", "task": {{ json task.id }}}';
    const dest = destination(
      'webhook',
      { payload_template: template, content_type: 'application/vnd.x+json' },
      { url: `${receiver.url}/t`, secret },
    );
    await sendNotification(dest, samplePayload(), ctx);
    expect(last().body).toBe('{"text": "Task #99 of Deploy failed (error)", "task": 99}');
    expect(last().headers['content-type']).toBe('application/vnd.x+json');
    expect(
      verifySignature(secret, String(last().headers['x-gantry-signature']), last().body, NOW.getTime() / 1000),
    ).toBe(true);
  });
});

describe('failures', () => {
  it('refuses a private address unless allowed, without retrying, naming no path', async () => {
    const dest = destination('slack', {}, { url: `${receiver.url}/services/T/B/secretpart` });
    const e = await failure(sendNotification(dest, samplePayload(), { ...ctx, allowedHosts: [] }));
    expect(e.retryable).toBe(false);
    expect(e.message).toContain('private');
    expect(e.message).not.toContain('secretpart');
    expect(receiver.requests).toHaveLength(0);
  });

  it('retries 5xx, 429 and other 4xx, not 400/401/403/404/410, nor a redirect', async () => {
    const dest = destination('slack', {}, { url: `${receiver.url}/s` });
    for (const [code, retryable] of [
      [503, true],
      [429, true],
      [409, true],
      [400, false],
      [401, false],
      [404, false],
      [410, false],
      [302, false],
    ] as const) {
      status = code;
      const e = await failure(sendNotification(dest, samplePayload(), ctx));
      expect([code, e.httpStatus, e.retryable]).toEqual([code, code, retryable]);
    }
    const down = destination('slack', {}, { url: `http://127.0.0.1:${await closedPort()}/s` });
    const e = await failure(sendNotification(down, samplePayload(), ctx));
    expect([e.httpStatus, e.retryable]).toEqual([null, true]);
  });

  it('never shows a Telegram token in an error, whatever the receiver answers', async () => {
    const token = '987654:SECRETtokenVALUE';
    // A receiver that echoes what it was asked, path and all.
    const http = await import('node:http');
    const echo = http.createServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: false, description: `Unauthorized for ${req.url}` }));
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    const port = (echo.address() as { port: number }).port;
    try {
      const dest = destination('telegram', { chat_id: '1', api_url: `http://127.0.0.1:${port}` }, { token });
      const refused = await failure(sendNotification(dest, samplePayload(), ctx));
      expect(refused.httpStatus).toBe(401);
      expect(refused.message).toContain('Unauthorized');
      expect(refused.message).not.toContain('SECRETtoken');
      expect(refused.message).not.toContain('987654');
      const down = destination(
        'telegram',
        { chat_id: '1', api_url: `http://127.0.0.1:${await closedPort()}` },
        { token },
      );
      expect((await failure(sendNotification(down, samplePayload(), ctx))).message).not.toContain('SECRETtoken');
    } finally {
      await new Promise<void>((r) => echo.close(() => r()));
    }
  });

  it('fails for good without a required secret', async () => {
    const e = await failure(
      sendNotification(destination('webhook', {}, { url: `${receiver.url}/x` }), samplePayload(), ctx),
    );
    expect(e.retryable).toBe(false);
    expect(e.message).toContain('secret');
  });
});
