import { INTEGRATION_BODY_LIMIT } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { engines, useTestApp } from '../../test/harness.js';
import { setupTemplate, taskLog, waitForTask } from '../../test/tasks.js';
import {
  NOT_FOUND,
  bitbucketPush,
  deliver,
  githubPush,
  hmac,
  settle,
  setupWebhooks as setup,
  tasksOf,
} from '../../test/webhooks.js';

const SCRIPT = 'echo "sha=$COMMIT_SHA"\necho "branch=$BRANCH"\necho "repo=$REPO"\necho "vars=$GANTRY_EXTRA_VARS"\n';

describe.each(engines)('webhook receiver: authentication and tasks ($name)', (engine) => {
  const t = useTestApp(engine);

  it('starts a task from a signed GitHub push, with extracted values as env and extra variables', async () => {
    const ctx = t();
    const s = await setup(ctx, SCRIPT);
    const secret = await s.key('gh-webhook-secret');
    const hook = await s.integration(
      {
        name: 'github push',
        auth_method: 'github',
        auth_secret_id: secret,
        task_params: { environment: '{"stage":"prod","REPO":"overridden"}' },
      },
      {
        matchers: [
          { name: 'push', match_type: 'header', key: 'X-GitHub-Event', method: 'equals', value: 'push' },
          {
            name: 'main',
            match_type: 'body',
            body_data_type: 'json',
            key: 'ref',
            method: 'equals',
            value: 'refs/heads/main',
          },
        ],
        values: [
          {
            name: 'sha',
            value_source: 'body',
            body_data_type: 'json',
            key: 'head_commit.id',
            variable_type: 'environment',
            variable: 'COMMIT_SHA',
          },
          {
            name: 'repo',
            value_source: 'body',
            body_data_type: 'json',
            key: 'repository.full_name',
            variable_type: 'task',
            variable: 'REPO',
          },
          {
            name: 'repo id',
            value_source: 'body',
            body_data_type: 'json',
            key: 'repository.id',
            variable_type: 'task',
            variable: 'repo_id',
          },
          {
            name: 'delivery',
            value_source: 'header',
            key: 'X-GitHub-Delivery',
            variable_type: 'task',
            variable: 'delivery',
          },
          {
            name: 'absent',
            value_source: 'body',
            body_data_type: 'json',
            key: 'no.such.path',
            variable_type: 'environment',
            variable: 'ABSENT',
          },
        ],
      },
    );
    const body = JSON.stringify(githubPush());
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/044aadd',
      'x-github-event': 'push',
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'x-hub-signature-256': `sha256=${hmac('gh-webhook-secret', body)}`,
    };
    const ok = await deliver(ctx, hook.alias, body, headers);
    expect(ok.statusCode).toBe(204);
    expect(ok.body).toBe('');
    const [task, ...more] = await tasksOf(s.admin, s.p, hook.id);
    expect(more).toEqual([]);
    expect(task).toMatchObject({ integration_id: hook.id, message: 'Integration github push' });
    expect(JSON.parse(task!.environment)).toEqual({
      stage: 'prod',
      REPO: 'acme/app',
      repo_id: 1296269,
      delivery: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    });
    expect((await waitForTask(s.admin, s.p, task!.id)).status).toBe('success');
    const log = await taskLog(s.admin, s.p, task!.id);
    expect(log).toContain('sha=6dcb09b5b57875f334f61aebed695e2e4193db5e');
    expect(log).toContain('repo=acme/app');
    expect(log.find((l) => l.startsWith('vars='))).toContain('"REPO":"acme/app"');
    const events = (await s.admin.get(`/api/project/${s.p}/events/last`))
      .json()
      .map((e: { description: string }) => e.description);
    expect(events).toContain(`Integration github push started task #${task!.id}`);

    // Wrong and missing signatures, an unknown alias and a malformed one: the same 404.
    const answers = [
      await deliver(ctx, hook.alias, body, { ...headers, 'x-hub-signature-256': `sha256=${hmac('guess', body)}` }),
      await deliver(ctx, hook.alias, body, { ...headers, 'x-hub-signature-256': '' }),
      await deliver(ctx, hook.alias, body, { 'content-type': 'application/json', 'x-github-event': 'push' }),
      await deliver(ctx, hook.alias, `${body} `, headers),
      await deliver(ctx, 'a'.repeat(32), body, headers),
      await deliver(ctx, 'short', body, headers),
    ];
    for (const r of answers) {
      expect(r.statusCode).toBe(404);
      expect(r.json()).toEqual(NOT_FOUND);
      expect(r.headers['content-type']).toBe(answers[0]!.headers['content-type']);
    }
    // Authenticated but not matching: accepted, nothing started (each delivery has its own id).
    const develop = JSON.stringify(githubPush('refs/heads/develop'));
    expect(
      (
        await deliver(ctx, hook.alias, develop, {
          ...headers,
          'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0959',
          'x-hub-signature-256': `sha256=${hmac('gh-webhook-secret', develop)}`,
        })
      ).statusCode,
    ).toBe(204);
    const pingBody = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
    const ping = {
      ...headers,
      'x-github-event': 'ping',
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0960',
      'x-hub-signature-256': `sha256=${hmac('gh-webhook-secret', pingBody)}`,
    };
    expect((await deliver(ctx, hook.alias, pingBody, ping)).statusCode).toBe(204);
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(1);
  });

  it('starts a task from a signed Bitbucket repo:push', async () => {
    const ctx = t();
    const s = await setup(ctx, SCRIPT);
    const secret = await s.key('bb-webhook-secret');
    const hook = await s.integration(
      { name: 'bitbucket', auth_method: 'bitbucket', auth_secret_id: secret },
      {
        matchers: [{ name: 'push', match_type: 'header', key: 'X-Event-Key', method: 'equals', value: 'repo:push' }],
        values: [
          {
            name: 'branch',
            value_source: 'body',
            body_data_type: 'json',
            key: 'push.changes.0.new.name',
            variable_type: 'environment',
            variable: 'BRANCH',
          },
        ],
      },
    );
    const body = JSON.stringify(bitbucketPush('release'));
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Bitbucket-Webhooks/2.0',
      'x-event-key': 'repo:push',
      'x-hook-uuid': 'f3a4',
      'x-hub-signature': `sha256=${hmac('bb-webhook-secret', body)}`,
    };
    expect((await deliver(ctx, hook.alias, body, headers)).statusCode).toBe(204);
    for (const wrong of [
      { 'x-hub-signature': `sha256=${hmac('nope', body)}` },
      { 'x-hub-signature': hmac('bb-webhook-secret', body) },
      { 'x-hub-signature': '' },
    ]) {
      const r = await deliver(ctx, hook.alias, body, { ...headers, ...wrong });
      expect([r.statusCode, r.json()]).toEqual([404, NOT_FOUND]);
    }
    const [task] = await tasksOf(s.admin, s.p, hook.id);
    expect((await waitForTask(s.admin, s.p, task!.id)).status).toBe('success');
    expect(await taskLog(s.admin, s.p, task!.id)).toContain('branch=release');
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(1);
  });

  it('authenticates with token, hmac, basic and none', async () => {
    const ctx = t();
    const s = await setup(ctx);
    const body = '{"event":"deploy"}';
    const json = { 'content-type': 'application/json' };
    const token = await s.integration({
      name: 'token',
      auth_method: 'token',
      auth_header: 'X-Gitlab-Token',
      auth_secret_id: await s.key('tok-123'),
    });
    // A token in Authorization must not be taken for one of our API tokens.
    const bearer = await s.integration({
      name: 'bearer',
      auth_method: 'token',
      auth_header: 'Authorization',
      auth_secret_id: await s.key('Bearer tok-456'),
    });
    const mac = await s.integration({
      name: 'hmac',
      auth_method: 'hmac',
      auth_header: 'X-Signature',
      auth_secret_id: await s.key('mac-secret'),
    });
    const basic = await s.integration({
      name: 'basic',
      auth_method: 'basic',
      auth_secret_id: await s.key('pass-word', 'ci'),
    });
    const none = await s.integration({ name: 'none', auth_method: 'none' });
    const basicOf = (v: string) => `Basic ${Buffer.from(v).toString('base64')}`;

    const cases: Array<[string, Record<string, string>, number]> = [
      [token.alias, { 'x-gitlab-token': 'tok-123' }, 204],
      [token.alias, { 'x-gitlab-token': 'tok-12' }, 404],
      [token.alias, {}, 404],
      [bearer.alias, { authorization: 'Bearer tok-456' }, 204],
      [bearer.alias, { authorization: 'Bearer tok-45' }, 404],
      [mac.alias, { 'x-signature': hmac('mac-secret', body) }, 204],
      [mac.alias, { 'x-signature': `sha256=${hmac('mac-secret', body)}` }, 204],
      [mac.alias, { 'x-signature': hmac('mac-secret', `${body}\n`) }, 404],
      [mac.alias, { 'x-signature': 'zz' }, 404],
      [basic.alias, { authorization: basicOf('ci:pass-word') }, 204],
      [basic.alias, { authorization: basicOf('ci:pass-wor') }, 404],
      [basic.alias, { authorization: basicOf('root:pass-word') }, 404],
      [basic.alias, { authorization: 'Basic' }, 404],
      [none.alias, {}, 204],
      [none.alias, { authorization: 'Bearer not-one-of-ours' }, 204],
    ];
    for (const [alias, headers, status] of cases) {
      const r = await deliver(ctx, alias, body, { ...json, ...headers });
      expect([alias, headers, r.statusCode]).toEqual([alias, headers, status]);
      if (status === 404) expect(r.json()).toEqual(NOT_FOUND);
    }
    expect(await tasksOf(s.admin, s.p, token.id)).toHaveLength(1);
    expect(await tasksOf(s.admin, s.p, bearer.id)).toHaveLength(1);
    expect(await tasksOf(s.admin, s.p, mac.id)).toHaveLength(2);
    expect(await tasksOf(s.admin, s.p, basic.id)).toHaveLength(1);
    expect(await tasksOf(s.admin, s.p, none.id)).toHaveLength(2);

    // A secret key changed to one without a password authenticates nothing.
    const keyId = (await s.admin.get(`/api/project/${s.p}/integrations/${token.id}`)).json().auth_secret_id;
    expect((await s.admin.put(`/api/project/${s.p}/keys/${keyId}`, { name: 'emptied', type: 'none' })).statusCode).toBe(
      204,
    );
    expect((await deliver(ctx, token.alias, body, { ...json, 'x-gitlab-token': 'tok-123' })).statusCode).toBe(404);
    await settle(s.admin, s.p);
  });

  it('refuses bodies over the limit with 413, ignores browser checks and starts nothing on failure', async () => {
    const ctx = t();
    const s = await setup(ctx);
    const hook = await s.integration({ name: 'big' });
    const filler = (n: number) => JSON.stringify({ pad: 'x'.repeat(n - 10) });
    const tooBig = filler(INTEGRATION_BODY_LIMIT + 1);
    expect(Buffer.byteLength(tooBig)).toBeGreaterThan(INTEGRATION_BODY_LIMIT);
    for (const type of ['application/json', 'text/plain', 'application/octet-stream']) {
      const r = await deliver(ctx, hook.alias, tooBig, { 'content-type': type });
      expect([r.statusCode, r.json()]).toEqual([413, { error: 'Request body is too large', code: 'body_too_large' }]);
    }
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(0);
    const fits = filler(INTEGRATION_BODY_LIMIT);
    expect(Buffer.byteLength(fits)).toBeLessThanOrEqual(INTEGRATION_BODY_LIMIT);
    expect((await deliver(ctx, hook.alias, fits, { 'content-type': 'application/json' })).statusCode).toBe(204);
    // Another server's request carries no console header; a cross-site browser post is still just a delivery.
    expect(
      (
        await deliver(ctx, hook.alias, '{}', {
          'content-type': 'application/json',
          origin: 'https://evil.example',
          'sec-fetch-site': 'cross-site',
        })
      ).statusCode,
    ).toBe(204);
    expect(await tasksOf(s.admin, s.p, hook.id)).toHaveLength(2);

    // A template whose required survey variable the hook does not give: accepted, logged, no task.
    const strict = await setupTemplate(s.admin, s.p, gitRepo({ 'x.sh': 'echo x\n' }), {
      app: 'bash',
      playbook: 'x.sh',
      name: 'strict',
      survey_vars: [{ name: 'size', title: 'Size', type: 'int', required: true }],
    });
    const failing = await s.integration({ name: 'needs size', template_id: strict.templateId });
    expect((await deliver(ctx, failing.alias, '{}', { 'content-type': 'application/json' })).statusCode).toBe(204);
    expect(await tasksOf(s.admin, s.p, failing.id)).toHaveLength(0);
    const events = (await s.admin.get(`/api/project/${s.p}/events/last`))
      .json()
      .map((e: { description: string }) => e.description);
    expect(events).toContain('Integration needs size could not start a task: Size is required');
    await settle(s.admin, s.p);
  });
});
