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

/**
 * Why `name` may not be an environment variable of a task, or null when it may. `ANSIBLE_*` is
 * refused from task input only: managers set Ansible options (ANSIBLE_HOST_KEY_CHECKING...) in
 * variable groups on purpose.
 */
export function envNameProblem(name: string, source: VariableSource): string | null {
  if (!IDENTIFIER.test(name)) return `Variable ${name} must be letters, digits and underscores`;
  if (DENIED_ENV.has(name) || DENIED_ENV_PREFIXES.some((p) => name.startsWith(p)))
    return `Variable ${name} is reserved`;
  if (source === 'task' && name.startsWith('ANSIBLE_')) return `Variable ${name} is reserved`;
  return null;
}

/** Why `name` may not be an extra variable given by task input, or null when it may. */
export function extraVarNameProblem(name: string): string | null {
  if (!IDENTIFIER.test(name)) return `Variable ${name} must be letters, digits and underscores`;
  if (name.toLowerCase().startsWith('ansible_') || MAGIC_VARS.has(name)) return `Variable ${name} is reserved`;
  return null;
}

/**
 * A variable of task input (survey answer, extra variable, integration value): it is an Ansible
 * extra variable and, for scripts, an environment variable too, so it must pass both rules.
 */
export function taskVariableProblem(name: string): string | null {
  return extraVarNameProblem(name) ?? envNameProblem(name, 'task');
}
