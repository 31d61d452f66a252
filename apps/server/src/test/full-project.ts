import { createProject, type Caller } from './harness.js';
import { opensshPrivateKey } from './keys.js';

/** Values that must never appear in a backup. */
export const SECRETS = {
  passphrase: 'ssh-passphrase-Zq81',
  password: 'login-password-Xk42',
  envSecret: 'env-secret-value-Pw77',
  varSecret: 'var-secret-value-Lm93',
  hookPassword: 'hook-password-Rt55',
};

/**
 * A project holding one of every kind of object (keys of each type, repositories, inventories,
 * a variable group with secrets, views, task/build/deploy/terraform templates, schedules, an
 * integration with rules and an alias), made through the API. Answers what a test checks.
 */
export async function fullProject(c: Caller) {
  const p = await createProject(c, 'Backup source');
  const post = async (path: string, body: object): Promise<number> => {
    const r = await c.post(`/api/project/${p}/${path}`, body);
    if (r.statusCode !== 201) throw new Error(`${path}: ${r.statusCode} ${r.body}`);
    return r.json<{ id: number }>().id;
  };
  const ssh = opensshPrivateKey(SECRETS.passphrase);
  const sshKey = await post('keys', {
    name: 'deploy ssh',
    type: 'ssh',
    ssh: { login: 'deployer', passphrase: SECRETS.passphrase, private_key: ssh.privateKey },
  });
  const loginKey = await post('keys', {
    name: 'become',
    type: 'login_password',
    login_password: { login: 'root-login', password: SECRETS.password },
  });
  const hookKey = await post('keys', {
    name: 'hook secret',
    type: 'login_password',
    login_password: { login: 'hook', password: SECRETS.hookPassword },
  });
  const noneKey = await post('keys', { name: 'none', type: 'none' });
  const repo = await post('repositories', {
    name: 'app repo',
    git_url: 'git@example.com:acme/app.git',
    git_branch: 'main',
    ssh_key_id: sshKey,
  });
  const local = await post('repositories', { name: 'local repo', git_url: '/srv/repos/infra', ssh_key_id: noneKey });
  const hosts = await post('inventory', {
    name: 'hosts',
    type: 'static',
    inventory: 'web1\nweb2',
    ssh_key_id: sshKey,
    become_key_id: loginKey,
  });
  await post('inventory', {
    name: 'file inv',
    type: 'file',
    inventory: 'inventories/prod.ini',
    ssh_key_id: noneKey,
    repository_id: local,
  });
  const ws = await post('inventory', {
    name: 'tf ws',
    type: 'terraform-workspace',
    inventory: 'prod',
    ssh_key_id: noneKey,
  });
  const env = await post('environment', {
    name: 'prod vars',
    json: '{"region":"eu"}',
    env: '{"STAGE":"prod"}',
    secrets: [
      { name: 'DB_PASSWORD', type: 'env', secret: SECRETS.envSecret },
      { name: 'api_token', type: 'var', secret: SECRETS.varSecret },
    ],
  });
  const opsView = await post('views', { title: 'Ops', position: 1 });
  await post('views', { title: 'Empty view', position: 2 });
  const playbook = await post('templates', {
    name: 'Playbook',
    app: 'ansible',
    playbook: 'site.yml',
    inventory_id: hosts,
    repository_id: repo,
    environment_id: env,
    view_id: opsView,
    git_branch: 'release',
    arguments: '["--forks","5"]',
    allow_override_args_in_task: true,
    allow_extra_vars_in_task: true,
    survey_vars: [
      { name: 'version', title: 'Version', required: true },
      {
        name: 'color',
        title: 'Colour',
        type: 'enum',
        values: [
          { name: 'Red', value: 'red' },
          { name: 'Blue', value: 'blue' },
        ],
      },
    ],
    vaults: [
      { name: 'prod', type: 'password', vault_key_id: loginKey },
      { type: 'script', script: 'vault/get-client.py' },
    ],
    task_params: { limit: ['web'], tags: ['deploy'], allow_debug: true, allow_override_limit: true },
  });
  const build = await post('templates', {
    name: 'Build',
    type: 'build',
    app: 'bash',
    playbook: 'build.sh',
    repository_id: local,
    environment_id: env,
    start_version: '1.0.0',
  });
  await post('templates', {
    name: 'Deploy',
    type: 'deploy',
    app: 'bash',
    playbook: 'deploy.sh',
    repository_id: local,
    environment_id: env,
    build_template_id: build,
    autorun: true,
    view_id: opsView,
  });
  await post('templates', {
    name: 'Infra',
    app: 'terraform',
    repository_id: local,
    environment_id: env,
    inventory_id: ws,
    task_params: { auto_approve: true, allow_destroy: true },
  });
  await post('schedules', { name: 'nightly', template_id: playbook, cron_format: '0 2 * * *', active: true });
  await post('schedules', {
    name: 'on commit',
    template_id: build,
    cron_format: '*/5 * * * *',
    repository_id: local,
    active: true,
  });
  const hook = await post('integrations', {
    name: 'push hook',
    template_id: build,
    auth_method: 'hmac',
    auth_header: 'X-Signature',
    auth_secret_id: hookKey,
    searchable: true,
    task_params: { message: 'from hook', environment: '{"stage":"prod"}' },
  });
  await post(`integrations/${hook}/matchers`, {
    name: 'main only',
    match_type: 'body',
    body_data_type: 'json',
    key: 'ref',
    method: 'equals',
    value: 'refs/heads/main',
  });
  await post(`integrations/${hook}/values`, {
    name: 'commit',
    value_source: 'body',
    body_data_type: 'json',
    key: 'after',
    variable_type: 'environment',
    variable: 'COMMIT',
  });
  const alias = (await c.post(`/api/project/${p}/integrations/${hook}/aliases`)).json<{ alias: string }>().alias;
  return { p, alias, privateKey: ssh.privateKey };
}
