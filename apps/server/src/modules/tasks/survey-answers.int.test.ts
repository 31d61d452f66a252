import { describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../../test/tasks.js';
import { deliver } from '../../test/webhooks.js';
import { waitFor } from '../../test/wait.js';
import { createWorkflow, startRun, tnode } from '../../test/workflow-runs.js';

const CHOICES = [
  { name: 'Web', value: 'web' },
  { name: 'Database', value: 'db' },
];
/** One parameter of every type. */
const SURVEY = [
  { name: 'port', title: 'Port', type: 'int', min: 1, max: 65535, required: true },
  { name: 'ratio', title: 'Ratio', type: 'number', max: 1 },
  { name: 'dry', title: 'Dry run', type: 'boolean', default_value: 'false' },
  { name: 'tiers', title: 'Tiers', type: 'multi_enum', values: CHOICES },
  { name: 'colour', title: 'Colour', type: 'enum', values: CHOICES },
  { name: 'day', title: 'Day', type: 'date' },
  { name: 'slug', title: 'Slug', type: '', regex: '[a-z-]+' },
  { name: 'notes', title: 'Notes', type: 'text' },
  { name: 'token', title: 'Token', type: 'secret' },
];
const SCRIPT = 'echo "port=$port dry=$dry tiers=$tiers ratio=$ratio"\n';

async function setup(admin: Caller) {
  const p = await createProject(admin);
  const s = await setupTemplate(admin, p, gitRepo({ 'run.sh': SCRIPT }), {
    app: 'bash',
    playbook: 'run.sh',
    survey_vars: SURVEY,
  });
  return { p, tpl: s.templateId };
}

const storedEnvironment = async (c: Caller, p: number, id: number) =>
  JSON.parse((await c.get(`/api/project/${p}/tasks/${id}`)).json().environment as string) as Record<string, unknown>;

describe.each(engines)('typed run parameters ($name)', (engine) => {
  const t = useTestApp(engine);

  it('stores typed answers of every type, from typed JSON and from Semaphore text, and gives scripts their text', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await setup(admin);
    const typed = await runTask(admin, p, {
      template_id: tpl,
      environment: JSON.stringify({
        port: 8080,
        ratio: 0.5,
        dry: true,
        tiers: ['web', 'db'],
        colour: 'db',
        day: '2026-03-01',
        slug: 'a-b',
        notes: 'line 1\nline 2',
      }),
      secret: JSON.stringify({ token: 's3cret' }),
    });
    expect(await storedEnvironment(admin, p, typed)).toEqual({
      port: 8080,
      ratio: 0.5,
      dry: true,
      tiers: ['web', 'db'],
      colour: 'db',
      day: '2026-03-01',
      slug: 'a-b',
      notes: 'line 1\nline 2',
    });
    // Semaphore's console sends every answer as text; the default fills in what is left out.
    const texts = await runTask(admin, p, {
      template_id: tpl,
      environment: JSON.stringify({ port: '5', ratio: '', tiers: '["db"]' }),
    });
    expect(await storedEnvironment(admin, p, texts)).toEqual({ port: 5, dry: false, tiers: ['db'] });
    const task = await waitForTask(admin, p, texts);
    const log = await taskLog(admin, p, texts);
    expect(task.status, log.join('\n')).toBe('success');
    expect(log).toContain('port=5 dry=false tiers=["db"] ratio=');
    await waitForTask(admin, p, typed);
  });

  it('refuses an answer of the wrong type or out of its limits, naming the parameter, and queues nothing', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await setup(admin);
    const refused = async (environment: object, code: string, field: string, error: string) => {
      const r = await admin.post(`/api/project/${p}/tasks`, {
        template_id: tpl,
        environment: JSON.stringify({ port: 1, ...environment }),
      });
      expect([r.statusCode, r.json().code, r.json().field, r.json().error]).toEqual([400, code, field, error]);
    };
    await refused({ port: undefined }, 'survey_value_required', 'environment.port', 'Port is required');
    await refused({ port: '8.5' }, 'survey_value_integer', 'environment.port', 'Port must be integer');
    await refused({ port: 70000 }, 'survey_value_max', 'environment.port', 'Port must be at most 65535');
    await refused({ ratio: 'half' }, 'survey_value_number', 'environment.ratio', 'Ratio must be a number');
    await refused({ dry: 'yes' }, 'survey_value_boolean', 'environment.dry', 'Dry run must be true or false');
    await refused(
      { tiers: ['web', 'cache'] },
      'survey_value_enum',
      'environment.tiers',
      'Tiers must be one of its values',
    );
    await refused({ colour: 'red' }, 'survey_value_enum', 'environment.colour', 'Colour must be one of its values');
    await refused({ day: '2026-02-30' }, 'survey_value_date', 'environment.day', 'Day must be a date (YYYY-MM-DD)');
    await refused(
      { slug: 'Not OK' },
      'survey_value_pattern',
      'environment.slug',
      'Slug does not match the required pattern',
    );
    await refused({ notes: { a: 1 } }, 'survey_value_text', 'environment.notes', 'Notes must be text');
    expect((await admin.get(`/api/project/${p}/tasks`)).json()).toEqual([]);
  });

  it('a schedule keeps typed answers checked when saved, and its runs get them', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const { p, tpl } = await setup(admin);
    const base = `/api/project/${p}/schedules`;
    const body = (environment?: object) => ({
      name: 'nightly',
      template_id: tpl,
      cron_format: '* * * * *',
      ...(environment ? { task_params: { environment: JSON.stringify(environment) } } : {}),
    });
    const bad = await admin.post(base, body({ port: '70000' }));
    expect([bad.statusCode, bad.json().code, bad.json().field]).toEqual([
      400,
      'survey_value_max',
      'task_params.environment.port',
    ]);
    const missing = await admin.post(base, body({ dry: true }));
    expect([missing.statusCode, missing.json().code, missing.json().field]).toEqual([
      400,
      'survey_value_required',
      'task_params.environment.port',
    ]);
    const secret = await admin.post(base, body({ port: 1, token: 'x' }));
    expect([secret.statusCode, secret.json().code, secret.json().field]).toEqual([
      400,
      'survey_secret_not_stored',
      'task_params.environment.token',
    ]);
    // Semaphore's clients send no answers: saved as before.
    const plain = await admin.post(base, body());
    expect([plain.statusCode, 'task_params' in plain.json()]).toEqual([201, false]);
    await admin.del(`${base}/${plain.json().id}`);

    const created = await admin.post(base, body({ port: '8080', tiers: '["web"]' }));
    expect(created.statusCode).toBe(201);
    const id = created.json().id;
    expect(JSON.parse(created.json().task_params.environment)).toEqual({ port: 8080, tiers: ['web'] });
    // A PUT without task_params keeps the stored answers.
    expect(
      (await admin.put(`${base}/${id}`, { name: 'renamed', template_id: tpl, cron_format: '* * * * *' })).statusCode,
    ).toBe(204);
    expect(JSON.parse((await admin.get(`${base}/${id}`)).json().task_params.environment)).toEqual({
      port: 8080,
      tiers: ['web'],
    });

    expect(await ctx.app.services.scheduler.tick(new Date(Date.now() + 61_000))).toBe(1);
    const [task] = (await admin.get(`/api/project/${p}/templates/${tpl}/tasks`)).json() as Array<{
      id: number;
      schedule_id: number;
    }>;
    expect(task!.schedule_id).toBe(id);
    expect(await storedEnvironment(admin, p, task!.id)).toEqual({ port: 8080, tiers: ['web'], dry: false });
    expect((await waitForTask(admin, p, task!.id)).status).toBe('success');
  });

  it("a workflow node's answers are typed as a task's", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await setup(admin);
    const wf = await createWorkflow(admin, p, {
      nodes: [tnode('deploy', tpl, { params: { environment: { port: '7', tiers: '["db"]' } } })],
    });
    await startRun(admin, p, wf);
    const task = await waitFor(
      "the node's task",
      async () => ((await admin.get(`/api/project/${p}/tasks`)).json() as Array<{ id: number }>)[0],
    );
    expect(await storedEnvironment(admin, p, task.id)).toEqual({ port: 7, tiers: ['db'], dry: false });
    await waitForTask(admin, p, task.id);
  });

  it("an integration's answers are checked when saved and completed by a delivery at run time", async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const { p, tpl } = await setup(admin);
    const base = `/api/project/${p}/integrations`;
    const bad = await admin.post(base, {
      name: 'hook',
      template_id: tpl,
      task_params: { environment: '{"dry":"maybe"}' },
    });
    expect([bad.statusCode, bad.json().code, bad.json().field]).toEqual([
      400,
      'survey_value_boolean',
      'task_params.environment.dry',
    ]);
    // Nothing required at save (a delivery may bring it); given answers are stored typed.
    const created = await admin.post(base, {
      name: 'hook',
      template_id: tpl,
      task_params: { environment: '{"dry":"true","tiers":"[\\"db\\"]"}' },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id;
    expect(JSON.parse(created.json().task_params.environment)).toEqual({ dry: true, tiers: ['db'] });
    const alias = (await admin.post(`${base}/${id}/aliases`)).json().alias as string;
    // Without the required port the delivery starts nothing (its refusal is an event).
    expect((await deliver(ctx, alias, '{"port":"443"}', { 'content-type': 'application/json' })).statusCode).toBe(204);
    expect((await admin.get(`/api/project/${p}/tasks`)).json()).toEqual([]);
    expect(
      (
        await admin.post(`${base}/${id}/values`, {
          name: 'port',
          value_source: 'body',
          body_data_type: 'json',
          key: 'port',
          variable_type: 'task',
          variable: 'port',
        })
      ).statusCode,
    ).toBe(201);
    expect((await deliver(ctx, alias, '{"port":"443"}', { 'content-type': 'application/json' })).statusCode).toBe(204);
    const [task] = (await admin.get(`/api/project/${p}/tasks`)).json() as Array<{ id: number }>;
    expect(await storedEnvironment(admin, p, task!.id)).toEqual({ dry: true, tiers: ['db'], port: 443 });
    await waitForTask(admin, p, task!.id);
  });
});

describe.each(engines)('run parameters saved before their rules ($name)', (engine) => {
  const t = useTestApp(engine);

  it('a template whose stored parameter breaks a newer rule still reads and runs; saving it again is refused', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const { p, tpl } = await setup(admin);
    // As an older version could save it: an integer whose default is no integer.
    const legacy = [
      {
        name: 'count',
        title: 'Count',
        description: '',
        type: 'int',
        values: [],
        default_value: 'abc',
        required: false,
      },
    ];
    await ctx.db.db
      .updateTable('template')
      .set({ survey_vars: JSON.stringify(legacy) })
      .where('id', '=', tpl)
      .execute();
    const read = await admin.get(`/api/project/${p}/templates/${tpl}`);
    expect([read.statusCode, read.json().survey_vars[0].default_value]).toEqual([200, 'abc']);
    // The bad default is not applied: the task runs without it.
    const id = await runTask(admin, p, { template_id: tpl });
    expect(await storedEnvironment(admin, p, id)).toEqual({});
    await waitForTask(admin, p, id);
    const again = await admin.put(`/api/project/${p}/templates/${tpl}`, {
      ...read.json<Record<string, unknown>>(),
      survey_vars: legacy,
    });
    expect([again.statusCode, again.json().code, again.json().field]).toEqual([
      400,
      'survey_default_invalid',
      'survey_vars.0.default_value',
    ]);
  });
});
