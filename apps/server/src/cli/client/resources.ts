/** A kind of object the client manages: where the API keeps it and what a table shows of it. */
export interface ResourceKind {
  /** The command's noun (plural, so it never clashes with the server-side `project`, `user`, `workflow`). */
  command: string;
  /** Singular, for messages. */
  label: string;
  /** Inside a project: `/project/{id}/<path>`; else the project routes themselves. */
  path: string | null;
  columns: string[];
  /** Verbs beyond list/get/create/update/delete, each a command of its own (`workflows run`). */
  moreVerbs?: string[];
}

export const RESOURCES: ResourceKind[] = [
  { command: 'projects', label: 'project', path: null, columns: ['id', 'name', 'type', 'role', 'max_parallel_tasks'] },
  {
    command: 'templates',
    label: 'template',
    path: 'templates',
    columns: ['id', 'name', 'app', 'playbook', 'repository_id', 'environment_id', 'inventory_id'],
  },
  {
    command: 'inventories',
    label: 'inventory',
    path: 'inventory',
    columns: ['id', 'name', 'type', 'ssh_key_id', 'repository_id'],
  },
  { command: 'keys', label: 'key', path: 'keys', columns: ['id', 'name', 'type'] },
  { command: 'variable-groups', label: 'variable group', path: 'environment', columns: ['id', 'name'] },
  {
    command: 'schedules',
    label: 'schedule',
    path: 'schedules',
    columns: ['id', 'name', 'cron_format', 'template_id', 'active'],
  },
  // Created and changed as JSON (--file): the graph is too nested for --set. Started with `workflows run`.
  {
    command: 'workflows',
    label: 'workflow',
    path: 'workflows',
    columns: ['id', 'name', 'description', 'updated'],
    moreVerbs: ['run'],
  },
  // Not named in the issue, but a template needs one and scripts set them up too.
  {
    command: 'repositories',
    label: 'repository',
    path: 'repositories',
    columns: ['id', 'name', 'git_url', 'git_branch', 'ssh_key_id'],
  },
];

export const RESOURCE_VERBS = ['list', 'get', 'create', 'update', 'delete'] as const;
export type ResourceVerb = (typeof RESOURCE_VERBS)[number];

export function findResource(command: string): ResourceKind | undefined {
  return RESOURCES.find((r) => r.command === command);
}

/** The collection's URL (below /api) and one object's. */
export function resourceUrls(
  kind: ResourceKind,
  projectId: number | null,
): { list: string; create: string; item: (id: number) => string } {
  if (kind.path === null) return { list: '/projects', create: '/projects', item: (id) => `/project/${id}` };
  const base = `/project/${projectId}/${kind.path}`;
  return { list: base, create: base, item: (id) => `${base}/${id}` };
}
