import { describe, expect, it } from 'vitest';
import { engines, useTestApp } from '../../test/harness.js';
import { NOT_FOUND, deliver, settle, setupWebhooks as setup, tasksOf } from '../../test/webhooks.js';

describe.each(engines)('webhook receiver: matchers and project aliases ($name)', (engine) => {
  const t = useTestApp(engine);

  it('matches headers, JSON bodies and string bodies with equals, unequals and contains', async () => {
    const ctx = t();
    const s = await setup(ctx);
    const payload = JSON.stringify({
      action: 'published',
      release: { tag_name: 'v1.2.0', draft: false, assets: [{ name: 'app.tar.gz', size: 1024 }] },
      count: 3,
    });
    const headers = { 'content-type': 'application/json', 'x-event': 'release', 'x-env': 'production' };
    const m = (match_type: string, key: string, method: string, value: string, body_data_type?: string) => ({
      name: `${key} ${method}`,
      match_type,
      key,
      method,
      value,
      body_data_type,
    });

    const cases: Array<[string, object[], boolean]> = [
      ['header equals', [m('header', 'X-Event', 'equals', 'release')], true],
      ['header equals, case of the name ignored', [m('header', 'x-EVENT', 'equals', 'release')], true],
      ['header equals, other value', [m('header', 'X-Event', 'equals', 'push')], false],
      ['header unequals', [m('header', 'X-Env', 'unequals', 'staging')], true],
      ['header unequals, same value', [m('header', 'X-Env', 'unequals', 'production')], false],
      ['header unequals, absent header', [m('header', 'X-Absent', 'unequals', 'x')], true],
      ['header contains', [m('header', 'X-Env', 'contains', 'prod')], true],
      ['header contains, absent header', [m('header', 'X-Absent', 'contains', 'x')], false],
      ['json equals string', [m('body', 'release.tag_name', 'equals', 'v1.2.0', 'json')], true],
      ['json equals number', [m('body', 'count', 'equals', '3', 'json')], true],
      ['json equals boolean', [m('body', 'release.draft', 'equals', 'false', 'json')], true],
      ['json equals in an array', [m('body', 'release.assets.0.name', 'equals', 'app.tar.gz', 'json')], true],
      ['json unequals', [m('body', 'action', 'unequals', 'deleted', 'json')], true],
      ['json unequals, same value', [m('body', 'action', 'unequals', 'published', 'json')], false],
      ['json contains', [m('body', 'release.tag_name', 'contains', 'v1.', 'json')], true],
      ['json contains, no', [m('body', 'release.tag_name', 'contains', 'v2.', 'json')], false],
      ['json equals, missing path', [m('body', 'release.nope', 'equals', 'x', 'json')], false],
      ['string contains', [m('body', 'ignored', 'contains', '"tag_name":"v1.2.0"', 'string')], true],
      ['string equals', [m('body', 'ignored', 'equals', payload, 'string')], true],
      ['string unequals', [m('body', 'ignored', 'unequals', payload, 'string')], false],
      [
        'all must match',
        [m('header', 'X-Event', 'equals', 'release'), m('body', 'action', 'equals', 'deleted', 'json')],
        false,
      ],
      [
        'all match',
        [
          m('header', 'X-Event', 'equals', 'release'),
          m('body', 'action', 'equals', 'published', 'json'),
          m('body', '-', 'contains', 'assets', 'string'),
        ],
        true,
      ],
      ['no matchers', [], true],
    ];
    const hooks = [];
    for (const [name, matchers] of cases) hooks.push(await s.integration({ name }, { matchers }));
    for (const h of hooks) expect((await deliver(ctx, h.alias, payload, headers)).statusCode).toBe(204);
    const started = await Promise.all(hooks.map(async (h) => (await tasksOf(s.admin, s.p, h.id)).length === 1));
    expect(cases.map(([name], i) => [name, started[i]])).toEqual(cases.map(([name, , expected]) => [name, expected]));

    // A body that is not JSON matches no JSON matcher, not even unequals; no 500 on junk.
    const unequals = await s.integration(
      { name: 'json unequals on junk' },
      { matchers: [m('body', 'action', 'unequals', 'x', 'json')] },
    );
    const free = await s.integration({ name: 'no matchers on junk' });
    for (const [body, contentType] of [
      ['{"action": ', 'application/json'],
      ['not json at all', 'text/plain'],
      ['action=opened&x=1', 'application/x-www-form-urlencoded'],
      ['<push/>', 'application/xml'],
      ['', 'application/json'],
      [Buffer.from([0xff, 0xfe, 0x00, 0x7b]), 'application/octet-stream'],
      // JSON nested deeper than it can be written back out.
      [`{"action":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, 'application/json'],
    ] as const) {
      for (const h of [unequals, free]) {
        const r = await deliver(ctx, h.alias, body, { 'content-type': contentType });
        expect([contentType, r.statusCode]).toEqual([contentType, 204]);
      }
    }
    expect((await deliver(ctx, free.alias, 'no content type')).statusCode).toBe(204);
    expect(await tasksOf(s.admin, s.p, unequals.id)).toHaveLength(0);
    expect(await tasksOf(s.admin, s.p, free.id)).toHaveLength(8);
    await settle(s.admin, s.p);
  });

  it('reaches only searchable integrations through a project alias', async () => {
    const ctx = t();
    const s = await setup(ctx);
    const base = `/api/project/${s.p}/integrations`;
    const projectAlias = (await s.admin.post(`${base}/aliases`)).json().alias;
    expect((await deliver(ctx, projectAlias, '{}', { 'content-type': 'application/json' })).json()).toEqual(NOT_FOUND);

    const shared = await s.integration({ name: 'shared', searchable: true });
    const hidden = await s.integration({ name: 'hidden', searchable: false });
    const locked = await s.integration({
      name: 'locked',
      searchable: true,
      auth_method: 'token',
      auth_header: 'X-Token',
      auth_secret_id: await s.key('only-me'),
    });
    const picky = await s.integration(
      { name: 'picky', searchable: true },
      { matchers: [{ name: 'tag', match_type: 'header', key: 'X-Kind', method: 'equals', value: 'tag' }] },
    );
    expect((await deliver(ctx, projectAlias, '{}', { 'content-type': 'application/json' })).statusCode).toBe(204);
    expect((await tasksOf(s.admin, s.p, shared.id)).length).toBe(1);
    expect((await tasksOf(s.admin, s.p, hidden.id)).length).toBe(0);
    expect((await tasksOf(s.admin, s.p, locked.id)).length).toBe(0);
    expect((await tasksOf(s.admin, s.p, picky.id)).length).toBe(0);
    expect(
      (
        await deliver(ctx, projectAlias, '{}', {
          'content-type': 'application/json',
          'x-token': 'only-me',
          'x-kind': 'tag',
        })
      ).statusCode,
    ).toBe(204);
    expect((await tasksOf(s.admin, s.p, shared.id)).length).toBe(2);
    expect((await tasksOf(s.admin, s.p, locked.id)).length).toBe(1);
    expect((await tasksOf(s.admin, s.p, picky.id)).length).toBe(1);
    // The hidden integration's own alias still works.
    expect((await deliver(ctx, hidden.alias, '{}', { 'content-type': 'application/json' })).statusCode).toBe(204);
    expect((await tasksOf(s.admin, s.p, hidden.id)).length).toBe(1);
    await settle(s.admin, s.p);
  });
});
