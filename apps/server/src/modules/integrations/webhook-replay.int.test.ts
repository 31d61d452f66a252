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

    expect((await deliver(ctx, hook.alias, body, githubHeaders(body, 'gh-delivery-2'))).statusCode).toBe(204);
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
    expect((await deliver(ctx, hook.alias, body, bitbucketHeaders(body, `${uuid}-2`))).statusCode).toBe(204);
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
      { error: 'X-GitHub-Delivery must be at most 200 characters' },
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
});
