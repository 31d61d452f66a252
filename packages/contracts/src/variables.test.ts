import { describe, expect, it } from 'vitest';
import { environmentInputSchema } from './environments.js';
import {
  envNameIssue,
  envNameProblem,
  extraVarNameProblem,
  taskVariableEnvNames,
  taskVariableProblem,
} from './variables.js';

describe('environment variable names', () => {
  const steering = [
    'LD_PRELOAD',
    'LD_LIBRARY_PATH',
    'DYLD_INSERT_LIBRARIES',
    'BASH_ENV',
    'BASH_FUNC_x',
    'BASHOPTS',
    'SHELLOPTS',
    'PS4',
    'ENV',
    'IFS',
    'PATH',
    'HOME',
    'GIT_SSH_COMMAND',
    'GIT_CONFIG_PARAMETERS',
    'SSH_AUTH_SOCK',
    'PYTHONPATH',
    'PYTHONWARNINGS',
    'PYTHONSTARTUP',
    'PERL5LIB',
    'PERL5OPT',
    'RUBYOPT',
    'RUBYLIB',
    'NODE_OPTIONS',
    'JAVA_TOOL_OPTIONS',
    '_JAVA_OPTIONS',
    'TF_CLI_ARGS',
    'TF_CLI_ARGS_plan',
    'BROWSER',
    'GANTRY_TASK_ID',
  ];

  it('refuses loader, shell, interpreter and tool-steering names from every source, naming the variable', () => {
    for (const name of steering) {
      expect(envNameProblem(name, 'task'), name).toBe(`Variable ${name} is reserved`);
      expect(envNameProblem(name, 'group'), name).toBe(`Variable ${name} is reserved`);
    }
  });

  it('refuses ANSIBLE_* from task input only: managers set Ansible options in variable groups', () => {
    expect(envNameProblem('ANSIBLE_CONFIG', 'task')).toBe('Variable ANSIBLE_CONFIG is reserved');
    expect(envNameProblem('ANSIBLE_HOST_KEY_CHECKING', 'group')).toBeNull();
  });

  it('takes only identifiers', () => {
    for (const name of ['', '1A', 'A-B', 'A B', 'A=B', 'é', 'BASH_FUNC_x%%'])
      expect(envNameProblem(name, 'group')).toBe(`Variable ${name} must be letters, digits and underscores`);
  });

  it('lets ordinary names through, including ones that only look like reserved ones', () => {
    for (const name of [
      'COMMIT_SHA',
      'DB_PASSWORD',
      'MY_PATH',
      'path',
      'git_branch',
      'python_version',
      'STAGE',
      'SSHD_PORT',
      'db_host',
      'proxy_mode',
      'HOSTNAME_SUFFIX',
      'tf_version',
    ])
      expect(envNameProblem(name, 'task'), name).toBeNull();
  });

  const connections = [
    'http_proxy',
    'HTTPS_PROXY',
    'ALL_PROXY',
    'NO_PROXY',
    'no_proxy',
    'VAULT_ADDR',
    'CONSUL_HTTP_ADDR',
    'DOCKER_HOST',
    'AWS_ENDPOINT_URL',
    'AWS_ENDPOINT_URL_S3',
    'SSL_CERT_FILE',
    'SSL_CERT_DIR',
    'REQUESTS_CA_BUNDLE',
    'CURL_CA_BUNDLE',
    'NODE_EXTRA_CA_CERTS',
    'GIT_SSL_CAINFO',
    'AWS_CA_BUNDLE',
    'GLIBC_TUNABLES',
    'LOCPATH',
    'NPM_CONFIG_REGISTRY',
    'npm_config_registry',
    'GOFLAGS',
    'GOPROXY',
    'TF_LOG',
    'TF_VAR_x',
    'TF_CLI_ARGS',
    'TF_PLUGIN_CACHE_DIR',
  ];

  it('refuses proxies, endpoints, CA bundles, libc, npm, Go and Terraform options from task input only, naming the variable', () => {
    for (const name of connections) {
      expect(envNameProblem(name, 'task'), name).toBe(`Variable ${name} is reserved`);
      expect(envNameIssue(name, 'task'), name).toEqual({
        code: 'variable_reserved',
        message: `Variable ${name} is reserved`,
      });
      expect(taskVariableProblem(name), name).toBe(`Variable ${name} is reserved`);
    }
    // Variable groups keep them: managers set proxies, endpoints and TF_LOG on purpose.
    for (const name of connections.filter((n) => !n.startsWith('GIT_') && !n.startsWith('TF_CLI_ARGS')))
      expect(envNameProblem(name, 'group'), name).toBeNull();
  });
});

describe('extra variable names from task input', () => {
  it("refuses Ansible's connection, interpreter and magic variables", () => {
    for (const name of [
      'ansible_python_interpreter',
      'ansible_ssh_common_args',
      'ansible_connection',
      'ANSIBLE_HOST',
      'hostvars',
      'groups',
      'group_names',
      'inventory_hostname',
      'omit',
      'playbook_dir',
      'environment',
      'vars',
      'lookup',
    ])
      expect(extraVarNameProblem(name), name).toBe(`Variable ${name} is reserved`);
  });

  it('takes only identifiers', () => {
    expect(extraVarNameProblem('a-b')).toBe('Variable a-b must be letters, digits and underscores');
    expect(extraVarNameProblem('{{x}}')).toBe('Variable {{x}} must be letters, digits and underscores');
  });

  it('names the environment variables a task variable becomes: its own, and TF_VAR_ for Terraform/OpenTofu', () => {
    expect(taskVariableEnvNames('region', 'bash')).toEqual(['region']);
    expect(taskVariableEnvNames('region', 'terraform')).toEqual(['region', 'TF_VAR_region']);
    expect(taskVariableEnvNames('region', 'tofu')).toEqual(['region', 'TF_VAR_region']);
  });

  it('checks a task variable as an extra variable and as an environment variable of scripts', () => {
    expect(taskVariableProblem('greeting')).toBeNull();
    expect(taskVariableProblem('hostvars')).toBe('Variable hostvars is reserved');
    expect(taskVariableProblem('LD_PRELOAD')).toBe('Variable LD_PRELOAD is reserved');
    expect(taskVariableProblem('ANSIBLE_CONFIG')).toBe('Variable ANSIBLE_CONFIG is reserved');
  });
});

describe('variable group schema', () => {
  const parse = (body: object) => environmentInputSchema.safeParse({ name: 'g', ...body });
  const message = (body: object) => {
    const r = parse(body);
    return r.success ? null : r.error.issues[0]!.message;
  };

  it('refuses steering environment variables and env secrets, naming them', () => {
    expect(message({ env: '{"SHELLOPTS": "xtrace"}' })).toBe('Variable SHELLOPTS is reserved');
    expect(message({ env: '{"OK": "1", "PS4": "$(id)"}' })).toBe('Variable PS4 is reserved');
    expect(message({ secrets: [{ name: 'LD_PRELOAD', type: 'env', secret: '/x.so' }] })).toBe(
      'Variable LD_PRELOAD is reserved',
    );
    expect(message({ secrets: [{ name: 'GIT_SSH_COMMAND', type: 'env', secret: 'id' }] })).toBe(
      'Variable GIT_SSH_COMMAND is reserved',
    );
  });

  it('keeps extra variables, Ansible options and secret variables as managers set them', () => {
    expect(
      parse({
        json: '{"ansible_user": "deploy", "PATH": "x"}',
        env: '{"ANSIBLE_HOST_KEY_CHECKING": "False"}',
        secrets: [{ name: 'LD_PRELOAD', type: 'var', secret: 'x' }],
      }).success,
    ).toBe(true);
    // Deleting a secret with an old, now refused, name is allowed.
    expect(parse({ secrets: [{ id: 1, name: 'LD_PRELOAD', type: 'env', operation: 'delete' }] }).success).toBe(true);
  });
});
