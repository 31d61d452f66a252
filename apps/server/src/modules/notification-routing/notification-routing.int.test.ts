import { describe, expect, it } from 'vitest';
import { addMember, createProject, engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';
import { gitRepo } from '../../test/git-fixture.js';
import { setupTemplate } from '../../test/tasks.js';

const HOOK_SECRET = 'whsec-0123456789-abcdef';
const SLACK_URL = 'https://hooks.slack.example/services/T000/B000/slack-key-material';

describe.each(engines)('notification destinations and rules ($name)', (engine) => {
  const t = useTestApp(engine);

  /** A project made by an admin and a plain user who owns it. */
  async function owner(): Promise<{ c: Caller; projectId: number; admin: Caller }> {
    const admin = await signedInUser(t(), { admin: true });
    const projectId = await createProject(admin);
    const c = await signedInUser(t());
    await addMember(t(), projectId, c.id, 'owner');
    return { c, projectId, admin };
  }

  it('creates, reads, updates and deletes a webhook destination without ever answering its secrets', async () => {
    const { c, projectId } = await owner();
    const base = `/api/project/${projectId}/notification-destinations`;
    const res = await c.post(base, {
      name: 'Ops hook',
      kind: 'webhook',
      config: { url: 'https://hooks.example.com/in/path?token=query-key', secret: HOOK_SECRET, extra: 'dropped' },
    });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      project_id: projectId,
      name: 'Ops hook',
      kind: 'webhook',
      config: {},
      secrets: { url: true, secret: true },
      target: 'https://hooks.example.com/in/path',
      active: true,
      last_delivery: null,
    });
    const id = created.id as number;

    // The raw row holds neither secret: they are sealed.
    const row = await t()
      .db.db.selectFrom('notification_destination')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(HOOK_SECRET);
    expect(JSON.stringify(row)).not.toContain('query-key');

    // Update without the secrets keeps them.
    expect(
      (await c.put(`${base}/${id}`, { name: 'Renamed', kind: 'webhook', config: { url: null, secret: '' } }))
        .statusCode,
    ).toBe(204);
    const got = await c.get(`${base}/${id}`);
    expect(got.json()).toMatchObject({
      name: 'Renamed',
      secrets: { url: true, secret: true },
      target: 'https://hooks.example.com/in/path',
    });
    const opened = await t().app.services.notificationRouting.destinations.open(id);
    expect(opened?.secrets).toEqual({ url: 'https://hooks.example.com/in/path?token=query-key', secret: HOOK_SECRET });

    // A kind change asks for every required secret again.
    const change = await c.put(`${base}/${id}`, { name: 'Renamed', kind: 'slack', config: {} });
    expect(change.statusCode).toBe(400);
    expect(change.json()).toMatchObject({ code: 'notification_field_required', field: 'config.url', name: 'url' });
    expect((await c.put(`${base}/${id}`, { name: 'Chat', kind: 'slack', config: { url: SLACK_URL } })).statusCode).toBe(
      204,
    );
    const slack = (await c.get(`${base}/${id}`)).json();
    expect(slack).toMatchObject({ kind: 'slack', target: 'hooks.slack.example', secrets: { url: true } });

    const answers = [
      JSON.stringify(created),
      (await c.get(base)).body,
      (await c.get(`${base}/${id}`)).body,
      (await c.get(`/api/project/${projectId}/events`)).body,
      (await t().db.db.selectFrom('event').select('description').execute()).map((e) => e.description).join('\n'),
    ].join('\n');
    for (const secret of [HOOK_SECRET, 'query-key', 'slack-key-material']) expect(answers).not.toContain(secret);
    const audit = await t()
      .db.db.selectFrom('audit_entry')
      .selectAll()
      .where('object_type', '=', 'notification_destination')
      .execute();
    expect(audit.length).toBeGreaterThanOrEqual(3);
    for (const secret of [HOOK_SECRET, 'query-key', 'slack-key-material'])
      expect(JSON.stringify(audit)).not.toContain(secret);

    expect((await c.del(`${base}/${id}`)).statusCode).toBe(204);
    expect((await c.get(`${base}/${id}`)).statusCode).toBe(404);
    expect((await c.get(`${base}/${id}`)).json().code).toBe('notification_destination_not_found');
  });

  it('checks each kind’s fields with codes a console can word', async () => {
    const { c, projectId } = await owner();
    const base = `/api/project/${projectId}/notification-destinations`;
    const bad = async (kind: string, config: Record<string, unknown>) =>
      (await c.post(base, { name: 'x', kind, config })).json();
    expect(await bad('webhook', { url: 'https://h.example/x', secret: 'short' })).toMatchObject({
      code: 'notification_field_invalid',
      field: 'config.secret',
    });
    expect(await bad('webhook', { url: 'ftp://h.example/x', secret: HOOK_SECRET })).toMatchObject({
      code: 'notification_field_invalid',
      field: 'config.url',
    });
    expect(await bad('webhook', { url: 'https://user:pw@h.example/x', secret: HOOK_SECRET })).toMatchObject({
      code: 'notification_field_invalid',
      field: 'config.url',
    });
    expect(
      await bad('webhook', {
        url: 'https://h.example/x',
        secret: HOOK_SECRET,
        payload_template: '{"a": "{{#each x}}"}',
      }),
    ).toMatchObject({ code: 'notification_template_invalid', field: 'config.payload_template', tag: '{{#each x}}' });
    expect(await bad('email', {})).toMatchObject({ code: 'notification_field_required', field: 'config.to' });
    expect(await bad('email', { to: 'a@example.com, not-an-email' })).toMatchObject({
      code: 'notification_field_invalid',
      field: 'config.to',
    });
    expect(await bad('pagerduty', { routing_key: 'rk-1', severity: 'fatal' })).toMatchObject({
      code: 'notification_field_invalid',
      field: 'config.severity',
    });
    expect(await bad('gotify', { url: 'https://gotify.example', token: 't', priority: 'high' })).toMatchObject({
      code: 'notification_field_invalid',
      field: 'config.priority',
    });
    expect((await c.post(base, { name: '', kind: 'webhook', config: {} })).statusCode).toBe(400);
    expect((await c.post(base, { name: 'x', kind: 'carrier-pigeon', config: {} })).statusCode).toBe(400);

    const email = await c.post(base, {
      name: 'Mail',
      kind: 'email',
      config: { to: 'a@example.com; b@example.com', port: '2525' },
    });
    expect(email.statusCode).toBe(201);
    expect(email.json()).toMatchObject({
      config: { to: ['a@example.com', 'b@example.com'], port: 2525 },
      target: 'a@example.com, b@example.com',
    });
    const tg = await c.post(base, {
      name: 'TG',
      kind: 'telegram',
      config: { token: '123:tg-key', chat_id: '-100200' },
    });
    expect(tg.json()).toMatchObject({
      target: 'chat -100200',
      secrets: { token: true },
      config: { chat_id: '-100200' },
    });
    const pd = await c.post(base, {
      name: 'PD',
      kind: 'pagerduty',
      config: { routing_key: 'rk-1', severity: 'warning' },
    });
    expect(pd.json()).toMatchObject({ target: 'PagerDuty', config: { severity: 'warning' } });
  });

  it('lets members read, owners change, and hides another project’s destinations and rules', async () => {
    const { c, projectId } = await owner();
    const base = `/api/project/${projectId}/notification-destinations`;
    const dest = (
      await c.post(base, { name: 'Hook', kind: 'webhook', config: { url: 'https://h.example/x', secret: HOOK_SECRET } })
    ).json();
    const rule = await c.post(`/api/project/${projectId}/notification-rules`, {
      destination_id: dest.id,
      events: ['task_failed'],
    });
    expect(rule.statusCode).toBe(201);

    const guest = await signedInUser(t());
    await addMember(t(), projectId, guest.id, 'guest');
    expect((await guest.get(base)).statusCode).toBe(200);
    expect((await guest.get(`/api/project/${projectId}/notification-rules`)).json()).toHaveLength(1);
    expect((await guest.post(base, { name: 'no', kind: 'webhook', config: {} })).statusCode).toBe(403);
    expect((await guest.del(`${base}/${dest.id}`)).statusCode).toBe(403);
    expect((await guest.post(`${base}/${dest.id}/test`)).statusCode).toBe(403);

    const stranger = await signedInUser(t());
    expect((await stranger.get(base)).statusCode).toBe(404);

    // Another project's owner reaches none of it through their own project.
    const other = await owner();
    expect((await other.c.get(`/api/project/${other.projectId}/notification-destinations/${dest.id}`)).statusCode).toBe(
      404,
    );
    expect((await other.c.get(`/api/project/${other.projectId}/notification-rules/${rule.json().id}`)).statusCode).toBe(
      404,
    );
    expect(
      (await other.c.get(`/api/project/${other.projectId}/notification-destinations/${dest.id}/deliveries`)).statusCode,
    ).toBe(404);
    const foreign = await other.c.post(`/api/project/${other.projectId}/notification-rules`, {
      destination_id: dest.id,
      events: ['task_failed'],
    });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().code).toBe('notification_rule_scope');
  });

  it('keeps rules to their project’s templates and schedules, gives defaults, lists by template and goes with its destination', async () => {
    const { c, projectId } = await owner();
    const tpl = await setupTemplate(c, projectId, gitRepo({ 'ok.sh': 'echo ok\n' }), {
      name: 'Deploy',
      playbook: 'ok.sh',
    });
    const tpl2 = await setupTemplate(c, projectId, gitRepo({ 'ok.sh': 'echo ok\n' }), {
      name: 'Other',
      playbook: 'ok.sh',
    });
    const other = await owner();
    const foreignTpl = await setupTemplate(other.c, other.projectId, gitRepo({ 'ok.sh': 'echo ok\n' }), {
      playbook: 'ok.sh',
    });
    const dest = (
      await c.post(`/api/project/${projectId}/notification-destinations`, {
        name: 'Hook',
        kind: 'webhook',
        config: { url: 'https://h.example/x', secret: HOOK_SECRET },
      })
    ).json();
    const rules = `/api/project/${projectId}/notification-rules`;
    const wide = await c.post(rules, { destination_id: dest.id, events: ['long_running', 'digest'] });
    expect(wide.json()).toMatchObject({
      long_running_minutes: 30,
      digest_hour: 8,
      template_id: null,
      only_schedules: false,
    });
    const forTpl = await c.post(rules, {
      destination_id: dest.id,
      events: [],
      template_id: tpl.templateId,
      branch: ' main ',
    });
    expect(forTpl.json()).toMatchObject({
      events: [],
      template_id: tpl.templateId,
      branch: 'main',
      long_running_minutes: null,
    });
    await c.post(rules, { destination_id: dest.id, events: ['task_failed'], template_id: tpl2.templateId });

    const bad = await c.post(rules, {
      destination_id: dest.id,
      events: ['task_failed'],
      template_id: foreignTpl.templateId,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'notification_rule_scope', field: 'template_id' });
    expect((await c.post(rules, { destination_id: dest.id, events: ['nope'] })).statusCode).toBe(400);
    expect(
      (await c.post(rules, { destination_id: dest.id, events: ['task_failed'], schedule_id: 999999 })).json().code,
    ).toBe('notification_rule_scope');

    const sched = await c.post(`/api/project/${projectId}/schedules`, {
      name: 'nightly',
      cron_format: '0 3 * * *',
      template_id: tpl.templateId,
      active: false,
    });
    expect(sched.statusCode).toBe(201);
    const bySchedule = await c.post(rules, {
      destination_id: dest.id,
      events: ['task_failed'],
      schedule_id: sched.json().id,
    });
    expect(bySchedule.json()).toMatchObject({ schedule_id: sched.json().id, template_id: tpl.templateId });

    const listed = (await c.get(`${rules}?template_id=${tpl.templateId}`)).json() as Array<{ id: number }>;
    expect(listed.map((r) => r.id).sort()).toEqual([wide.json().id, forTpl.json().id, bySchedule.json().id].sort());
    expect((await c.get(rules)).json()).toHaveLength(4);

    const upd = await c.put(`${rules}/${wide.json().id}`, {
      destination_id: dest.id,
      events: ['task_failed'],
      only_schedules: true,
    });
    expect(upd.statusCode).toBe(204);
    expect((await c.get(`${rules}/${wide.json().id}`)).json()).toMatchObject({
      events: ['task_failed'],
      only_schedules: true,
      long_running_minutes: null,
    });

    expect((await c.del(`/api/project/${projectId}/notification-destinations/${dest.id}`)).statusCode).toBe(204);
    expect((await c.get(rules)).json()).toEqual([]);
  });

  it('loses rules with their schedule or template, and destinations with their project', async () => {
    const { c, projectId, admin } = await owner();
    const tpl = await setupTemplate(c, projectId, gitRepo({ 'ok.sh': 'echo ok\n' }), {
      name: 'Deploy',
      playbook: 'ok.sh',
    });
    const base = `/api/project/${projectId}/notification-destinations`;
    const dest = (
      await c.post(base, { name: 'Hook', kind: 'webhook', config: { url: 'https://h.example/x', secret: HOOK_SECRET } })
    ).json();
    const rules = `/api/project/${projectId}/notification-rules`;
    const sched = (
      await c.post(`/api/project/${projectId}/schedules`, {
        name: 'n',
        cron_format: '0 3 * * *',
        template_id: tpl.templateId,
        active: false,
      })
    ).json();
    await c.post(rules, { destination_id: dest.id, events: ['task_failed'], schedule_id: sched.id });
    await c.post(rules, { destination_id: dest.id, events: ['task_failed'], template_id: tpl.templateId });
    const wide = (await c.post(rules, { destination_id: dest.id, events: ['task_failed'] })).json();
    expect((await c.del(`/api/project/${projectId}/schedules/${sched.id}`)).statusCode).toBe(204);
    expect((await c.get(rules)).json()).toHaveLength(2);
    expect((await c.del(`/api/project/${projectId}/templates/${tpl.templateId}`)).statusCode).toBe(204);
    expect((await c.get(rules)).json().map((r: { id: number }) => r.id)).toEqual([wide.id]);
    expect((await admin.del(`/api/project/${projectId}`)).statusCode).toBe(204);
    const left = await t()
      .db.db.selectFrom('notification_destination')
      .select('id')
      .where('project_id', '=', projectId)
      .execute();
    expect(left).toEqual([]);
    expect(await t().db.db.selectFrom('notification_rule').select('id').where('id', '=', wide.id).execute()).toEqual(
      [],
    );
  });

  it('keeps global destinations and rules to admins', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const user = await signedInUser(t());
    const body = { name: 'Global hook', kind: 'webhook', config: { url: 'https://h.example/g', secret: HOOK_SECRET } };
    expect((await user.get('/api/notification-destinations')).statusCode).toBe(403);
    expect((await user.post('/api/notification-destinations', body)).statusCode).toBe(403);
    const created = await admin.post('/api/notification-destinations', body);
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ project_id: null, secrets: { url: true, secret: true } });
    const id = created.json().id;
    expect((await admin.get('/api/notification-destinations')).json().map((d: { id: number }) => d.id)).toContain(id);
    const rule = await admin.post('/api/notification-rules', { destination_id: id, events: ['runner_offline'] });
    expect(rule.statusCode).toBe(201);
    expect(rule.json().project_id).toBeNull();
    expect(
      (await admin.post('/api/notification-rules', { destination_id: id, events: [], template_id: 1 })).json().code,
    ).toBe('notification_rule_scope');
    expect((await user.get(`/api/notification-rules/${rule.json().id}`)).statusCode).toBe(403);

    // A project cannot reach a global destination through its routes, nor a global rule name a project's.
    const { c, projectId } = await owner();
    expect((await c.get(`/api/project/${projectId}/notification-destinations/${id}`)).statusCode).toBe(404);
    expect(
      (await c.post(`/api/project/${projectId}/notification-rules`, { destination_id: id, events: [] })).json().code,
    ).toBe('notification_rule_scope');
    expect((await admin.del(`/api/notification-destinations/${id}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/notification-rules/${rule.json().id}`)).statusCode).toBe(404);
  });
});
