import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, gitRepo } from '../../test/git-fixture.js';
import { addMember, createProject, engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';
import { json, startJsonServer, type JsonServer } from '../../test/json-server.js';
import { setupTemplate, waitForTask } from '../../test/tasks.js';

const region = {
  name: 'region',
  title: 'Region',
  type: 'enum',
  values: [
    { name: 'Europe', value: 'eu' },
    { name: 'America', value: 'us' },
  ],
};
const cluster = {
  name: 'cluster',
  title: 'Cluster',
  type: 'enum',
  options_source: {
    kind: 'parameter',
    parameter: 'region',
    options: {
      eu: [
        { name: 'Paris', value: 'par' },
        { name: 'Berlin', value: 'ber' },
      ],
      us: [{ name: 'Ohio', value: 'ohio' }],
    },
  },
};

describe.each(engines)('survey options ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_FETCH_ALLOWED_HOSTS: '127.0.0.1' });
  let server: JsonServer;
  beforeAll(async () => {
    server = await startJsonServer();
  });
  afterAll(() => server.close());

  async function template(c: Caller, p: number, vars: unknown[]) {
    const repo = gitRepo({ 'run.sh': 'echo "$cluster $version"\n' });
    return (await setupTemplate(c, p, repo, { app: 'bash', playbook: 'run.sh', survey_vars: vars })).templateId;
  }
  const optionsUrl = (p: number, id: number, name: string, answers?: unknown) =>
    `/api/project/${p}/templates/${id}/survey/${name}/options${answers === undefined ? '' : `?answers=${encodeURIComponent(JSON.stringify(answers))}`}`;

  it("offers a cascade's options by the parent's answer, none without one", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const id = await template(admin, p, [region, cluster]);

    const eu = await admin.get(optionsUrl(p, id, 'cluster', { region: 'eu' }));
    expect(eu.statusCode).toBe(200);
    expect(eu.json()).toEqual({
      options: [
        { name: 'Paris', value: 'par' },
        { name: 'Berlin', value: 'ber' },
      ],
      error: null,
      code: null,
      fetched_at: null,
    });
    expect((await admin.get(optionsUrl(p, id, 'cluster', { region: 'us' }))).json().options).toEqual([
      { name: 'Ohio', value: 'ohio' },
    ]);
    expect((await admin.get(optionsUrl(p, id, 'cluster'))).json().options).toEqual([]);

    const unknown = await admin.get(optionsUrl(p, id, 'nope'));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'survey_variable_not_found', variable: 'nope' });
    const noSource = await admin.get(optionsUrl(p, id, 'region'));
    expect(noSource.statusCode).toBe(400);
    expect(noSource.json()).toMatchObject({ code: 'survey_options_no_source', variable: 'region' });
    const badAnswers = await admin.get(`/api/project/${p}/templates/${id}/survey/cluster/options?answers=%5B1%5D`);
    expect(badAnswers.statusCode).toBe(400);
    expect(badAnswers.json()).toMatchObject({ code: 'json_object_required', field: 'answers' });
    const badInventory = await admin.get(`${optionsUrl(p, id, 'cluster')}?inventory_id=999999`);
    expect(badInventory.statusCode).toBe(400);
  });

  it("reads a URL's options, keeps the last good ones when it fails, and says why", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    server.route(`/versions-${p}`, json(['1.0', { name: 'Two', value: '2.0' }]));
    const id = await template(admin, p, [
      {
        name: 'version',
        title: 'Version',
        type: 'enum',
        options_source: { kind: 'url', url: `${server.url}/versions-${p}` },
      },
    ]);
    const first = (await admin.get(optionsUrl(p, id, 'version'))).json();
    expect(first).toMatchObject({
      options: [
        { name: '1.0', value: '1.0' },
        { name: 'Two', value: '2.0' },
      ],
      error: null,
      code: null,
    });
    expect(Date.parse(first.fetched_at)).not.toBeNaN();

    // Within the cache time the URL is not asked again.
    const hits = server.hits.length;
    await admin.get(optionsUrl(p, id, 'version'));
    expect(server.hits.length).toBe(hits);

    t().app.services.surveyOptions.cacheMs = 0;
    try {
      server.route(`/versions-${p}`, json({ error: 'down' }, 503));
      const failed = (await admin.get(optionsUrl(p, id, 'version'))).json();
      expect(failed).toEqual({
        options: first.options,
        error: 'The URL answered with status 503',
        code: 'url_status',
        fetched_at: first.fetched_at,
      });
      server.route(`/versions-${p}`, json({ not: 'a list' }));
      expect((await admin.get(optionsUrl(p, id, 'version'))).json()).toMatchObject({
        options: first.options,
        code: 'survey_options_invalid',
      });
    } finally {
      t().app.services.surveyOptions.cacheMs = 60_000;
    }
  });

  it('refuses a URL on a private address that the admin did not allow', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const id = await template(admin, p, [
      {
        name: 'meta',
        title: 'Meta',
        type: 'enum',
        options_source: { kind: 'url', url: 'http://169.254.169.254/latest/meta-data/' },
      },
      { name: 'lan', title: 'Lan', type: 'multi_enum', options_source: { kind: 'url', url: 'http://[::1]:1/list' } },
    ]);
    expect((await admin.get(optionsUrl(p, id, 'meta'))).json()).toMatchObject({
      options: [],
      code: 'url_private_address',
      fetched_at: null,
    });
    expect((await admin.get(optionsUrl(p, id, 'lan'))).json()).toMatchObject({
      options: [],
      code: 'url_private_address',
    });
  });

  it('lets members read options and hides the template from others', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const id = await template(admin, p, [region, cluster]);
    const member = await signedInUser(t());
    await addMember(t(), p, member.id, 'guest');
    expect((await member.get(optionsUrl(p, id, 'cluster', { region: 'us' }))).statusCode).toBe(200);
    const outsider = await signedInUser(t());
    const refused = await outsider.get(optionsUrl(p, id, 'cluster', { region: 'us' }));
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toMatchObject({ code: 'project_not_found' });
    // A template of another project is not found through this one.
    const other = await createProject(admin);
    expect((await admin.get(optionsUrl(other, id, 'cluster'))).json()).toMatchObject({ code: 'template_not_found' });
  });

  it("offers the hosts or groups of the template's inventory, or of one a task may choose", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const inventory = async (name: string, text: string) =>
      (await admin.post(`/api/project/${p}/inventory`, { name, type: 'static', inventory: text })).json().id as number;
    const main = await inventory('main', '[web]\nweb2\nweb1\n[db]\ndb1\n');
    const staging = await inventory('staging', '[web]\nstage1\n');
    const elsewhere = await inventory('elsewhere', '[web]\nother1\n');
    const repo = gitRepo({ 'run.sh': 'echo "$host"\n' });
    const { templateId: id } = await setupTemplate(admin, p, repo, {
      app: 'bash',
      playbook: 'run.sh',
      inventory_id: main,
      task_params: { allow_override_inventory: true, inventory_choices: [main, staging] },
      survey_vars: [
        { name: 'host', title: 'Host', type: 'enum', options_source: { kind: 'inventory_hosts' } },
        { name: 'tiers', title: 'Tiers', type: 'multi_enum', options_source: { kind: 'inventory_groups' } },
      ],
    });
    const hosts = (await admin.get(optionsUrl(p, id, 'host'))).json();
    expect(hosts).toMatchObject({ options: ['db1', 'web1', 'web2'].map((h) => ({ name: h, value: h })), error: null });
    expect((await admin.get(optionsUrl(p, id, 'tiers'))).json().options.map((o: { value: string }) => o.value)).toEqual(
      ['db', 'web'],
    );
    const chosen = await admin.get(`${optionsUrl(p, id, 'host')}?inventory_id=${staging}`);
    expect(chosen.json().options).toEqual([{ name: 'stage1', value: 'stage1' }]);
    const notAChoice = await admin.get(`${optionsUrl(p, id, 'host')}?inventory_id=${elsewhere}`);
    expect(notAChoice.statusCode).toBe(400);
    expect(notAChoice.json()).toMatchObject({ code: 'survey_options_inventory', field: 'inventory_id' });

    const start = (environment: Record<string, unknown>, inventory_id?: number) =>
      admin.post(`/api/project/${p}/tasks`, {
        template_id: id,
        environment: JSON.stringify(environment),
        inventory_id,
      });
    expect((await start({ host: 'web1', tiers: ['web', 'db'] })).statusCode).toBe(201);
    expect((await start({ host: 'stage1' })).json()).toMatchObject({
      code: 'survey_value_option',
      field: 'environment.host',
    });
    expect((await start({ host: 'stage1' }, staging)).statusCode).toBe(201);
    expect((await start({ tiers: ['web', 'all'] })).json()).toMatchObject({
      code: 'survey_value_option',
      field: 'environment.tiers',
    });
  });

  it("offers the hosts of a file of the template's own repository, read at the template's branch", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'run.sh': 'echo "$host"\n', 'inv/hosts.ini': '[web]\nmain-host\n' });
    execFileSync('git', ['checkout', '-q', '-b', 'staging'], { cwd: repo });
    commitFiles(repo, { 'inv/hosts.ini': '[web]\nstaging-host\n[db]\nstaging-db\n' });
    execFileSync('git', ['checkout', '-q', 'main'], { cwd: repo });
    const own = (
      await admin.post(`/api/project/${p}/inventory`, { name: 'own', type: 'file', inventory: 'inv/hosts.ini' })
    ).json().id as number;
    // By URL (a local path is read as it is, at no branch), on main; its template runs on staging.
    const { keyId, environmentId } = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'run.sh' });
    const repository = (
      await admin.post(`/api/project/${p}/repositories`, {
        name: 'by-url',
        git_url: `file://${repo}`,
        git_branch: 'main',
        ssh_key_id: keyId,
      })
    ).json().id as number;
    const made = await admin.post(`/api/project/${p}/templates`, {
      name: 'own',
      repository_id: repository,
      environment_id: environmentId,
      app: 'bash',
      playbook: 'run.sh',
      git_branch: 'staging',
      inventory_id: own,
      survey_vars: [
        { name: 'host', title: 'Host', type: 'enum', options_source: { kind: 'inventory_hosts' } },
        { name: 'tier', title: 'Tier', type: 'enum', options_source: { kind: 'inventory_groups' } },
      ],
    });
    expect(made.statusCode, made.body).toBe(201);
    const id = made.json().id as number;
    const hosts = (await admin.get(optionsUrl(p, id, 'host'))).json();
    expect(hosts).toMatchObject({
      options: ['staging-db', 'staging-host'].map((h) => ({ name: h, value: h })),
      error: null,
    });
    expect((await admin.get(optionsUrl(p, id, 'tier'))).json().options.map((o: { value: string }) => o.value)).toEqual([
      'db',
      'web',
    ]);
    const start = (environment: Record<string, unknown>) =>
      admin.post(`/api/project/${p}/tasks`, { template_id: id, environment: JSON.stringify(environment) });
    expect((await start({ host: 'main-host' })).json()).toMatchObject({
      code: 'survey_value_option',
      field: 'environment.host',
    });
    const started = await start({ host: 'staging-host' });
    expect(started.statusCode, started.body).toBe(201);
    await waitForTask(admin, p, started.json().id);
  });

  it('refuses a task whose answer is not among the current options', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    server.route(`/v-${p}`, json(['1.0', '2.0']));
    const id = await template(admin, p, [
      region,
      cluster,
      { name: 'version', title: 'Version', type: 'enum', options_source: { kind: 'url', url: `${server.url}/v-${p}` } },
    ]);
    const start = (environment: Record<string, unknown>) =>
      admin.post(`/api/project/${p}/tasks`, { template_id: id, environment: JSON.stringify(environment) });

    const wrongCluster = await start({ region: 'us', cluster: 'par', version: '1.0' });
    expect(wrongCluster.statusCode).toBe(400);
    expect(wrongCluster.json()).toMatchObject({
      code: 'survey_value_option',
      field: 'environment.cluster',
      title: 'Cluster',
    });
    const wrongVersion = await start({ region: 'eu', cluster: 'par', version: '9.9' });
    expect(wrongVersion.json()).toMatchObject({ code: 'survey_value_option', field: 'environment.version' });
    expect((await start({ region: 'eu', cluster: 'ber', version: '2.0' })).statusCode).toBe(201);

    // The URL fails: an answer among the last good options still starts, another does not.
    t().app.services.surveyOptions.cacheMs = 0;
    try {
      server.route(`/v-${p}`, json('down', 500));
      expect((await start({ region: 'eu', cluster: 'ber', version: '1.0' })).statusCode).toBe(201);
      const unknown = await start({ region: 'eu', cluster: 'ber', version: '3.0' });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json()).toMatchObject({
        code: 'survey_options_unavailable',
        field: 'environment.version',
        title: 'Version',
      });
    } finally {
      t().app.services.surveyOptions.cacheMs = 60_000;
    }
  });
});
