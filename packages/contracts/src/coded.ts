import type { ErrorCode } from './errors.js';

/**
 * The fields a refusal names ("Project name is required"): a stable key for each English label.
 * A coded refusal about a labelled field carries the key as `label_key`, never the English label:
 * the console words it from its dictionaries' `fieldLabels.<key>` (their `errors.<code>` texts
 * nest it as `$t(fieldLabels.{{label_key}})`), so one code serves every field (`field_required`)
 * and a translated sentence never holds an English word. See ErrorCodes.
 */
export const FieldLabels = {
  access_key: 'Access key',
  active: 'Active',
  admin: 'Admin',
  alert_chat: 'Alert chat',
  app: 'App',
  arguments: 'Arguments',
  auth_key: 'Auth key',
  become_key: 'Become key',
  body_data_format: 'Body data format',
  body_data_type: 'Body data type',
  branch: 'Branch',
  build_template: 'Build template',
  build_version: 'Build version',
  comparison_method: 'Comparison method',
  count: 'Count',
  cron: 'Cron',
  current_password: 'Current password',
  description: 'Description',
  destination: 'Destination',
  email: 'Email',
  environment: 'Environment',
  environment_variables: 'Environment variables',
  extra_variables: 'Extra variables',
  group: 'Group',
  icon: 'Icon',
  id: 'ID',
  inventory: 'Inventory',
  key: 'Key',
  limit: 'Limit',
  lock_id: 'Lock ID',
  login: 'Login',
  match_source: 'Match source',
  name: 'Name',
  passphrase: 'Passphrase',
  password: 'Password',
  path: 'Path',
  playbook: 'Playbook',
  playbook_filename: 'Playbook filename',
  priority: 'Priority',
  private_key: 'Private key',
  project: 'Project',
  project_name: 'Project name',
  recovery_code: 'Recovery code',
  repository: 'Repository',
  repository_url: 'Repository URL',
  role: 'Role',
  runner_tag: 'Runner tag',
  script_filename: 'Script filename',
  search_text: 'Search text',
  secret: 'Secret',
  secret_name: 'Secret name',
  skip_tags: 'Skip tags',
  source: 'Source',
  start: 'Start',
  start_version: 'Start version',
  tag: 'Tag',
  tags: 'Tags',
  template: 'Template',
  title: 'Title',
  type: 'Type',
  user: 'User',
  user_credentials: 'User credentials',
  username: 'Username',
  value: 'Value',
  value_source: 'Value source',
  variable: 'Variable',
  variable_group: 'Variable group',
  variable_name: 'Variable name',
  variable_title: 'Variable title',
  vault_password: 'Vault password',
  verification_code: 'Verification code',
  view: 'View',
  webhook: 'Webhook',
  workspace: 'Workspace',
  workspace_name: 'Workspace name',
  workflow: 'Workflow',
  from: 'From',
  to: 'To',
  node: 'Node',
  retries: 'Retries',
  retry_delay: 'Retry delay',
  timeout: 'Timeout',
  required_approvals: 'Required approvals',
  max_destroys: 'Maximum destroys',
  resource_type: 'Resource type',
  policy_path: 'Policy folder',
} as const;
export type FieldLabelKey = keyof typeof FieldLabels;
/** A label as the English messages write it ("Project name"). */
export type FieldLabel = (typeof FieldLabels)[FieldLabelKey];

const keyOfLabel = new Map<string, FieldLabelKey>(
  Object.entries(FieldLabels).map(([key, label]) => [label, key as FieldLabelKey]),
);

/** The stable key of an English label ('Project name' -> 'project_name'). */
export function labelKey(label: FieldLabel): FieldLabelKey {
  return keyOfLabel.get(label)!;
}

/** A refusal's stable code and its parameters, as the API answers them beside `error` (strings and numbers only). */
export interface Coded {
  code: ErrorCode;
  [param: string]: string | number;
}

const byMessage = new Map<string, Coded>();

/**
 * zod's options for a rule with a fixed English text: the text, and the code with its params in
 * `params` (custom rules: refine, superRefine issues keep them). zod's built-in checks (min, max,
 * int, enum, the type check...) drop `params`, so the text is also remembered here and issueCode
 * finds the code by it. Call it when a schema is built, with a text that holds no input.
 */
export function coded(
  message: string,
  code: ErrorCode,
  params: Record<string, string | number> = {},
): { error: string; params: Coded } {
  const value: Coded = { ...params, code };
  const known = byMessage.get(message);
  if (known && JSON.stringify(known) !== JSON.stringify(value))
    throw new Error(`"${message}" is already coded otherwise`);
  byMessage.set(message, value);
  return { error: message, params: value };
}

/** An issue a superRefine adds while parsing (its text may hold input, so it is not remembered by text). */
export function codedIssue(
  message: string,
  code: ErrorCode,
  params: Record<string, string | number> = {},
): { message: string; params: Coded } {
  return { message, params: { ...params, code } };
}

/**
 * The code and params of a zod issue of a contracts rule: its `params` when they carry a code,
 * else what its text was coded with; undefined for zod's own texts ("Invalid input: ...").
 */
export function issueCode(issue: { message?: string; params?: unknown } | undefined): Coded | undefined {
  const p = issue?.params as Record<string, unknown> | undefined;
  if (p && typeof p.code === 'string') {
    const values = Object.entries(p).filter(
      (e): e is [string, string | number] => typeof e[1] === 'string' || typeof e[1] === 'number',
    );
    return Object.fromEntries(values) as Coded;
  }
  return issue?.message === undefined ? undefined : byMessage.get(issue.message);
}
