/**
 * Rules for the names of variables that reach a task process: environment variables (from a
 * variable group, an integration or a task) and Ansible extra variables (from a task or an
 * integration). One place, used by the schemas, the task service, the webhook receiver and,
 * again, by the engine just before it spawns.
 */

/** Where an environment variable comes from: task input (tasks, integrations) or a variable group. */
export type VariableSource = 'task' | 'group';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Variables that steer the process itself rather than give it data: search paths, shell start-up
 * and tracing, the dynamic loader, interpreter and tool options. Compared as the OS compares them
 * (case-sensitively: tasks run on Linux, where `path` is not `PATH`).
 */
const DENIED_ENV = new Set([
  'PATH',
  'HOME',
  'SHELL',
  'IFS',
  'ENV',
  'CDPATH',
  'GLOBIGNORE',
  'BASHOPTS',
  'SHELLOPTS',
  'PS1',
  'PS2',
  'PS3',
  'PS4',
  'PROMPT_COMMAND',
  'NODE_OPTIONS',
  'NODE_PATH',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  'PERLLIB',
  'GCONV_PATH',
  'HOSTALIASES',
  'OPENSSL_CONF',
  'OPENSSL_ENGINES',
  'BROWSER',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'TF_CLI_CONFIG_FILE',
  'TERRAFORM_CONFIG',
]);
const DENIED_ENV_PREFIXES = [
  'LD_',
  'DYLD_',
  'BASH_',
  'GIT_',
  'SSH_',
  'PYTHON',
  'PERL5',
  'RUBY',
  'TF_CLI_ARGS',
  'GANTRY_',
  // Set by the engine for build and deploy tasks (Semaphore's names): the server's, never a user's.
  'SEMAPHORE_TASK_',
];

/**
 * What task input may not set on top of the above: where tools connect (proxies, service
 * addresses and endpoints), which certificate authorities they trust, how the C library and
 * package managers behave, and Terraform's own options. Managers set these in variable groups on
 * purpose (a proxy, a Vault address, TF_LOG); a task request, survey answer or webhook value that
 * set them would send the task's traffic, credentials included, wherever it liked.
 */
const TASK_DENIED_ENV = new Set([
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'NODE_EXTRA_CA_CERTS',
  'NODE_TLS_REJECT_UNAUTHORIZED',
  'AWS_CA_BUNDLE',
  'PIP_CERT',
  'HTTPLIB2_CA_CERTS',
  'GRPC_DEFAULT_SSL_ROOTS_FILE_PATH',
  'VAULT_CACERT',
  'VAULT_CAPATH',
  'GLIBC_TUNABLES',
  'LOCPATH',
  'GOFLAGS',
  'GOPROXY',
  'GONOPROXY',
  'GOSUMDB',
  'GONOSUMDB',
  'GOPRIVATE',
  'GOINSECURE',
]);
/** Shapes of such names: `*_proxy` in either case (curl reads both), `*_ADDR`, `*_HOST`, `*_ENDPOINT*`, CA files, npm's options (any case) and `TF_*`. */
const TASK_DENIED_ENV_PATTERNS = [
  /_proxy$/i,
  /_ADDR$/,
  /_HOST$/,
  /_ENDPOINT/,
  /_CA_BUNDLE$/,
  /_CAINFO$/,
  /_CACERT/,
  /^npm_config_/i,
  /^TF_/,
];

/**
 * Names that Ansible gives a meaning of its own: connection, interpreter and privilege variables
 * (every `ansible_*`) and the magic variables. Task input that took one of them would steer how
 * and where Ansible runs instead of giving the playbook data.
 */
const MAGIC_VARS = new Set([
  'hostvars',
  'groups',
  'group_names',
  'inventory_hostname',
  'inventory_hostname_short',
  'inventory_dir',
  'inventory_file',
  'omit',
  'playbook_dir',
  'play_hosts',
  'role_name',
  'role_names',
  'role_path',
  'environment',
  'vars',
  'lookup',
  'query',
  'q',
  'now',
  'undef',
  'range',
  'dict',
  'lipsum',
  'cycler',
  'joiner',
  'namespace',
]);

/** Extra variables the engine gives every Ansible run itself (Semaphore's `semaphore_vars`: the task's details). */
const ENGINE_VARS = new Set(['semaphore_vars']);

/** Why a variable name is refused, with the stable code the API answers beside the message. */
export interface VariableIssue {
  code: 'variable_name_invalid' | 'variable_reserved';
  message: string;
}

const invalidName = (name: string): VariableIssue => ({
  code: 'variable_name_invalid',
  message: `Variable ${name} must be letters, digits and underscores`,
});
const reserved = (name: string): VariableIssue => ({
  code: 'variable_reserved',
  message: `Variable ${name} is reserved`,
});

/**
 * Why `name` may not be an environment variable of a task, or null when it may. `ANSIBLE_*` and
 * the connection, trust and tool options of TASK_DENIED_ENV are refused from task input only:
 * managers set them (ANSIBLE_HOST_KEY_CHECKING, HTTPS_PROXY, TF_LOG...) in variable groups on purpose.
 */
export function envNameIssue(name: string, source: VariableSource): VariableIssue | null {
  if (!IDENTIFIER.test(name)) return invalidName(name);
  if (DENIED_ENV.has(name) || DENIED_ENV_PREFIXES.some((p) => name.startsWith(p))) return reserved(name);
  if (source === 'task' && isTaskDeniedEnv(name)) return reserved(name);
  return null;
}

function isTaskDeniedEnv(name: string): boolean {
  return name.startsWith('ANSIBLE_') || TASK_DENIED_ENV.has(name) || TASK_DENIED_ENV_PATTERNS.some((p) => p.test(name));
}

/** envNameIssue's message alone. */
export function envNameProblem(name: string, source: VariableSource): string | null {
  return envNameIssue(name, source)?.message ?? null;
}

/** Why `name` may not be an extra variable given by task input, or null when it may. */
export function extraVarNameProblem(name: string): string | null {
  if (!IDENTIFIER.test(name)) return invalidName(name).message;
  if (name.toLowerCase().startsWith('ansible_') || MAGIC_VARS.has(name) || ENGINE_VARS.has(name)) return reserved(name).message;
  return null;
}

/**
 * A variable of task input (survey answer, extra variable, integration value): it is an Ansible
 * extra variable and, for scripts, an environment variable too, so it must pass both rules.
 */
export function taskVariableIssue(name: string): VariableIssue | null {
  if (!IDENTIFIER.test(name)) return invalidName(name);
  if (extraVarNameProblem(name)) return reserved(name);
  return envNameIssue(name, 'task');
}

/** taskVariableIssue's message alone. */
export function taskVariableProblem(name: string): string | null {
  return taskVariableIssue(name)?.message ?? null;
}

/**
 * The environment variables a variable of task input becomes: its own name (scripts get scalar
 * variables as environment variables) and, for Terraform/OpenTofu, `TF_VAR_<name>`. Task input
 * may replace none of the variable group's environment variables through them.
 */
export function taskVariableEnvNames(name: string, app: string): string[] {
  return app === 'terraform' || app === 'tofu' ? [name, `TF_VAR_${name}`] : [name];
}

/** The message for a variable of task input that would replace one of the variable group's environment variables. */
export function replacesGroupEnvMessage(name: string): string {
  return `Variable ${name} would replace an environment variable of the variable group`;
}
