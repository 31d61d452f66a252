/** One kind of project object that a configuration file manages, in apply's dependency order. */
export interface KindSpec {
  /** Singular, for diff lines and errors (`+ template Deploy`). */
  label: string;
  /** The file's section. */
  section: string;
  /** Below /api/project/{id}/. */
  path: string;
  /** The field that names an object (views have a title). */
  nameField: 'name' | 'title';
  /** Plain fields mapped 1:1 (file name → API name). */
  fields: Record<string, string>;
  /** Name references (file name → [API id field, section they point at]). */
  refs: Record<string, [string, string]>;
  /** Ordered lists of names (file name → [API id list field, section they point at]). */
  listRefs?: Record<string, [string, string]>;
}

const same = (...names: string[]) => Object.fromEntries(names.map((n) => [n, n]));

export const KINDS: KindSpec[] = [
  // Keys and variable groups have secrets: their fields are handled by secrets.ts as well.
  { label: 'key', section: 'keys', path: 'keys', nameField: 'name', fields: same('name', 'type'), refs: {} },
  {
    label: 'repository',
    section: 'repositories',
    path: 'repositories',
    nameField: 'name',
    fields: same('name', 'git_url', 'git_branch'),
    refs: { ssh_key: ['ssh_key_id', 'keys'] },
  },
  {
    label: 'inventory',
    section: 'inventories',
    path: 'inventory',
    nameField: 'name',
    fields: same('name', 'type', 'inventory', 'git_branch'),
    refs: {
      ssh_key: ['ssh_key_id', 'keys'],
      become_key: ['become_key_id', 'keys'],
      repository: ['repository_id', 'repositories'],
    },
  },
  {
    label: 'variable group',
    section: 'variable_groups',
    path: 'environment',
    nameField: 'name',
    fields: same('name'),
    refs: {},
  },
  // Before templates, which name the view they are listed under.
  { label: 'view', section: 'views', path: 'views', nameField: 'title', fields: same('title', 'position'), refs: {} },
  {
    label: 'template',
    section: 'templates',
    path: 'templates',
    nameField: 'name',
    fields: same(
      'name',
      'description',
      'type',
      'app',
      'playbook',
      'git_branch',
      'arguments',
      'runner_tag',
      'start_version',
      'autorun',
      'allow_override_args_in_task',
      'allow_override_branch_in_task',
      'allow_extra_vars_in_task',
      'suppress_success_alerts',
      'survey_vars',
    ),
    refs: {
      repository: ['repository_id', 'repositories'],
      inventory: ['inventory_id', 'inventories'],
      environment: ['environment_id', 'variable_groups'],
      view: ['view_id', 'views'],
    },
    // Several variable groups merged in order and several inventories (the first of each is the one above).
    listRefs: {
      variable_groups: ['environment_ids', 'variable_groups'],
      inventories: ['inventory_ids', 'inventories'],
    },
  },
  {
    label: 'schedule',
    section: 'schedules',
    path: 'schedules',
    nameField: 'name',
    fields: { name: 'name', cron: 'cron_format', active: 'active', type: 'type' },
    refs: { template: ['template_id', 'templates'] },
  },
  {
    label: 'integration',
    section: 'integrations',
    path: 'integrations',
    nameField: 'name',
    fields: same('name', 'auth_method', 'auth_header', 'searchable'),
    refs: { template: ['template_id', 'templates'], auth_secret: ['auth_secret_id', 'keys'] },
  },
];

/** Every section a file may hold besides `project` and `team`. */
export const SECTIONS = KINDS.map((k) => k.section);
