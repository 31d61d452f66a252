import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { engines, useTestApp, type TestContext } from '../../test/harness.js';
import {
  NOT_FOUND,
  bitbucketPush,
  deliver,
  githubPush,
  hmac,
  settle,
  setupWebhooks as setup,
  tasksOf,
  type WebhookSetup,
} from '../../test/webhooks.js';

const GH_SECRET = 'gh-replay-secret';
const BB_SECRET = 'bb-replay-secret';

const githubHeaders = (body: string, delivery: string, secret = GH_SECRET) => ({
  'content-type': 'application/json',
  'x-github-event': 'push',
  'x-github-delivery': delivery,
  'x-hub-signature-256': `sha256=${hmac(secret, body)}`,
});

const bitbucketHeaders = (body: string, delivery: string) => ({
  'content-type': 'application/json',
  'x-event-key': 'repo:push',
  'x-request-uuid': delivery,
  'x-hub-signature': `sha256=${hmac(BB_SECRET, body)}`,
});

async function githubHook(s: WebhookSetup) {
  return s.integration({ name: 'gh', auth_method: 'github', auth_secret_id: await s.key(GH_SECRET) });
}

const rowsOf = (ctx: TestContext, integrationId: number) =>
  ctx.db.db.selectFrom('webhook_delivery').selectAll().where('integration_id', '=', integrationId).execute();
const bodyRowsOf = (ctx: TestContext, integrationId: number) =>
  ctx.db.db.selectFrom('webhook_delivery_body').selectAll().where('integration_id', '=', integrationId).execute();
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** An hmac integration's headers: the signature over `<timestamp>.<body>` when a timestamp is given. */
const hmacHeaders = (
  body: string,
  stamp?: number | string,
  signed = stamp === undefined ? body : `${stamp}.${body}`,
) => ({
  'content-type': 'application/json',
  'x-signature': `sha256=${hmac(MAC_SECRET, signed)}`,
  ...(stamp === undefined ? {} : { 'x-gantry-timestamp': String(stamp) }),
});
const MAC_SECRET = 'mac-replay-secret';
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe.each(engines)('webhook replay protection ($name)', (engine) => {
  const t = useTestApp(engine);

  it('starts one task for a GitHub delivery posted twice; another delivery id starts another', async () => {
    const ctx = t();
    const s = await setup(ctx);
    const hook = await githubHook(s);
    const body = JSON.stringify(githubPush());
    const first = await deliver(ctx, hook.alias, body, githubHeaders(body, 'gh-delivery-1'));
    expect(first.statusCode).toBe(204);
    const again = await deliver(ctx, hook.alias, body, githubHeaders(body, 'gh-delivery-1'));
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe('');
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(1);

    const next = JSON.stringify(githubPush('refs/heads/next'));
    expect((await deliver(ctx, hook.alias, next, githubHeaders(next, 'gh-delivery-2'))).statusCode).toBe(204);
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(2);
    expect((await rowsOf(ctx, hook.id)).map((r) => r.delivery_id).sort()).toEqual(['gh-delivery-1', 'gh-delivery-2']);
    await settle(s.admin, s.p);
  });

  it('starts one task for a Bitbucket delivery posted twice (X-Request-UUID)', async () => {
    const ctx = t();
    const s = await setup(ctx);
    const hook = await s.integration({ name: 'bb', auth_method: 'bitbucket', auth_secret_id: await s.key(BB_SECRET) });
    const body = JSON.stringify(bitbucketPush());
    const uuid = '{8c5f3a52-7b5e-4d8e-9a43-1f2e3d4c5b6a}';
    expect((await deliver(ctx, hook.alias, body, bitbucketHeaders(body, uuid))).statusCode).toBe(204);
    expect((await deliver(ctx, hook.alias, body, bitbucketHeaders(body, uuid))).statusCode).toBe(200);
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(1);
    const next = JSON.stringify(bitbucketPush('next'));
    expect((await deliver(ctx, hook.alias, next, bitbucketHeaders(next, `${uuid}-2`))).statusCode).toBe(204);
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(2);
    await settle(s.admin, s.p);
  });

  it('does not remember the id of a delivery that did not authenticate', async () => {
    const ctx = t();
    const s = await setup(ctx);
    const hook = await githubHook(s);
    const body = JSON.stringify(githubPush());
    // Someone without the secret tries to spend the id of a delivery to come.
    const forged = await deliver(ctx, hook.alias, body, githubHeaders(body, 'gh-future', 'guessed'));
    expect([forged.statusCode, forged.json()]).toEqual([404, NOT_FOUND]);
    expect(await rowsOf(ctx, hook.id)).toEqual([]);
    expect((await deliver(ctx, hook.alias, body, githubHeaders(body, 'gh-future'))).statusCode).toBe(204);
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(1);
    await settle(s.admin, s.p);
  });

  it('forgets delivery ids after 24 hours', async () => {
    const ctx = t();
    const s = await setup(ctx);
    const hook = await githubHook(s);
    const body = JSON.stringify(githubPush());
    const old = new Date(Date.now() - 25 * 60 * 60 * 1000).toISOString();
    await ctx.db.db
      .insertInto('webhook_delivery')
      .values({ integration_id: hook.id, delivery_id: 'gh-old', received: old })
      .execute();
    expect((await deliver(ctx, hook.alias, body, githubHeaders(body, 'gh-old'))).statusCode).toBe(204);
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(1);
    // The old row was purged and the id taken anew: a repeat now is refused.
    const rows = await rowsOf(ctx, hook.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.received > old).toBe(true);
    expect((await deliver(ctx, hook.alias, body, githubHeaders(body, 'gh-old'))).statusCode).toBe(200);
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(1);
    await settle(s.admin, s.p);
  });

  it('lets only one of two concurrent posts of a delivery start a task', async () => {
    const ctx = t();
    const s = await setup(ctx);
    const hook = await githubHook(s);
    const body = JSON.stringify(githubPush());
    const answers = await Promise.all(
      [1, 2, 3, 4].map(() => deliver(ctx, hook.alias, body, githubHeaders(body, 'gh-concurrent'))),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 200, 200, 204]);
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(1);
    await settle(s.admin, s.p);
  });

  it('answers 400 for an over-long delivery id of an authenticated delivery, starting nothing', async () => {
    const ctx = t();
    const s = await setup(ctx);
    const hook = await githubHook(s);
    const body = JSON.stringify(githubPush());
    const long = await deliver(ctx, hook.alias, body, githubHeaders(body, 'x'.repeat(201)));
    expect([long.statusCode, long.json()]).toEqual([
      400,
      {
        error: 'X-GitHub-Delivery must be at most 200 characters',
        code: 'header_too_long',
        header: 'X-GitHub-Delivery',
        max: 200,
      },
    ]);
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(0);
    expect(await rowsOf(ctx, hook.id)).toEqual([]);
    // Without the secret it is the usual 404: nothing says the alias exists.
    const forged = await deliver(ctx, hook.alias, body, githubHeaders(body, 'x'.repeat(201), 'guessed'));
    expect(forged.statusCode).toBe(404);
    // Other auth methods have no delivery id: the header is ignored.
    const open = await s.integration({ name: 'open', auth_method: 'none' });
    for (let n = 0; n < 2; n++) {
      expect((await deliver(ctx, open.alias, body, githubHeaders(body, 'gh-same'))).statusCode).toBe(204);
    }
    expect(await tasksOf(s.admin, s.p, open.id)).toHaveLength(2);
    await settle(s.admin, s.p);
  });
  it('refuses a GitHub delivery replayed under a changed or removed delivery id (same body, valid signature)', async () => {
    const ctx = t();
    const s = await setup(ctx);
    const hook = await githubHook(s);
    const body = JSON.stringify(githubPush());
    expect((await deliver(ctx, hook.alias, body, githubHeaders(body, 'gh-original'))).statusCode).toBe(204);
    // The same signed body: another id, no id at all. Answered as a repeated delivery id is.
    const changed = await deliver(ctx, hook.alias, body, githubHeaders(body, 'gh-replayed'));
    expect([changed.statusCode, changed.body]).toEqual([200, '']);
    const { 'x-github-delivery': _removed, ...withoutId } = githubHeaders(body, 'unused');
    const removed = await deliver(ctx, hook.alias, body, withoutId);
    expect([removed.statusCode, removed.body]).toEqual([200, '']);
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(1);
    // Only what was taken is remembered: the refused replay's id is not.
    expect((await rowsOf(ctx, hook.id)).map((r) => r.delivery_id)).toEqual(['gh-original']);
    expect((await bodyRowsOf(ctx, hook.id)).map((r) => r.body_sha256)).toEqual([sha256(body)]);

    // A new body without an id is taken once, by its body.
    const other = JSON.stringify(githubPush('refs/heads/other'));
    const { 'x-github-delivery': _none, ...otherWithoutId } = githubHeaders(other, 'unused');
    expect((await deliver(ctx, hook.alias, other, otherWithoutId)).statusCode).toBe(204);
    expect((await deliver(ctx, hook.alias, other, otherWithoutId)).statusCode).toBe(200);
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(2);

    // A known id with a new body is refused as before, and the new body is not spent by it.
    const third = JSON.stringify(githubPush('refs/heads/third'));
    expect((await deliver(ctx, hook.alias, third, githubHeaders(third, 'gh-original'))).statusCode).toBe(200);
    expect((await deliver(ctx, hook.alias, third, githubHeaders(third, 'gh-third'))).statusCode).toBe(204);
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(3);
    await settle(s.admin, s.p);
  });

  it('refuses a Bitbucket delivery replayed under another X-Request-UUID; concurrent replays start one task', async () => {
    const ctx = t();
    const s = await setup(ctx);
    const hook = await s.integration({ name: 'bb', auth_method: 'bitbucket', auth_secret_id: await s.key(BB_SECRET) });
    const body = JSON.stringify(bitbucketPush('replayed'));
    const answers = await Promise.all(
      ['{a}', '{b}', '{c}', '{d}'].map((uuid) => deliver(ctx, hook.alias, body, bitbucketHeaders(body, uuid))),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 200, 200, 204]);
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(1);
    expect(await rowsOf(ctx, hook.id)).toHaveLength(1);
    await settle(s.admin, s.p);
  });

  it('forgets delivery bodies after 24 hours; other integrations keep their own', async () => {
    const ctx = t();
    const s = await setup(ctx);
    const hook = await githubHook(s);
    const twin = await s.integration({
      name: 'gh twin',
      auth_method: 'github',
      auth_secret_id: await s.key(GH_SECRET, 'twin'),
    });
    const body = JSON.stringify(githubPush('refs/heads/aged'));
    const old = new Date(Date.now() - 25 * 60 * 60 * 1000).toISOString();
    await ctx.db.db
      .insertInto('webhook_delivery_body')
      .values({ integration_id: hook.id, body_sha256: sha256(body), received: old })
      .execute();
    expect((await deliver(ctx, hook.alias, body, githubHeaders(body, 'gh-aged'))).statusCode).toBe(204);
    const rows = await bodyRowsOf(ctx, hook.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.received > old).toBe(true);
    // The same delivery sent to another integration is that integration's first.
    expect((await deliver(ctx, twin.alias, body, githubHeaders(body, 'gh-aged'))).statusCode).toBe(204);
    expect(await tasksOf(s.admin, s.p, twin.id)).toHaveLength(1);
    await settle(s.admin, s.p);
  });
});

describe.each(engines)('hmac with X-Gantry-Timestamp ($name)', (engine) => {
  const t = useTestApp(engine);

  async function macHook(s: WebhookSetup) {
    return s.integration({
      name: 'mac',
      auth_method: 'hmac',
      auth_header: 'X-Signature',
      auth_secret_id: await s.key(MAC_SECRET),
    });
  }

  it('takes a signature over <timestamp>.<body> once; the body-only signature still works without the header', async () => {
    const ctx = t();
    const s = await setup(ctx);
    const hook = await macHook(s);
    const body = '{"event":"deploy"}';
    // Without the header: the signature of the body, and no replay check (as before).
    expect((await deliver(ctx, hook.alias, body, hmacHeaders(body))).statusCode).toBe(204);
    expect((await deliver(ctx, hook.alias, body, hmacHeaders(body))).statusCode).toBe(204);
    expect(await bodyRowsOf(ctx, hook.id)).toEqual([]);

    const now = nowSeconds();
    expect((await deliver(ctx, hook.alias, body, hmacHeaders(body, now))).statusCode).toBe(204);
    // The same signed delivery again is a replay; another timestamp is another delivery.
    const again = await deliver(ctx, hook.alias, body, hmacHeaders(body, now));
    expect([again.statusCode, again.body]).toEqual([200, '']);
    expect((await deliver(ctx, hook.alias, body, hmacHeaders(body, now - 1))).statusCode).toBe(204);
    // A sender's clock a little ahead is fine.
    expect((await deliver(ctx, hook.alias, body, hmacHeaders(body, now + 30))).statusCode).toBe(204);
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(5);
    expect((await bodyRowsOf(ctx, hook.id)).map((r) => r.body_sha256).sort()).toEqual(
      [`${now}.${body}`, `${now - 1}.${body}`, `${now + 30}.${body}`].map(sha256).sort(),
    );
    await settle(s.admin, s.p);
  });

  it('refuses a stale, a far-future or a malformed timestamp, and a signature that leaves it out, as any auth failure', async () => {
    const ctx = t();
    const s = await setup(ctx);
    const hook = await macHook(s);
    const body = '{"event":"deploy"}';
    const now = nowSeconds();
    const refused = [
      hmacHeaders(body, now - 6 * 60),
      hmacHeaders(body, now + 10 * 60),
      hmacHeaders(body, 'yesterday'),
      hmacHeaders(body, ''),
      // The timestamp is there but the signature is of the body alone: it could be moved to any delivery.
      hmacHeaders(body, now, body),
    ];
    for (const headers of refused) {
      const r = await deliver(ctx, hook.alias, body, headers);
      expect([r.statusCode, r.json()]).toEqual([404, NOT_FOUND]);
    }
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(0);
    expect(await bodyRowsOf(ctx, hook.id)).toEqual([]);
  });
});
