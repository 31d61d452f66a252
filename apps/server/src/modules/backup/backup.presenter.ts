import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  authMethodOf,
  type AccessKey,
  type Environment,
  type ExtractValue,
  type Integration,
  type Inventory,
  type Matcher,
  type Project,
  type ProjectBackup,
  type Repository,
  type Schedule,
  type Template,
  type View,
  type Workflow,
  type WorkflowNode,
} from '@gantry/contracts';
import { templateFields } from './backup.template-fields.js';

/**
 * What an export reads: the API shapes of the project's objects (which carry no secret), plus
 * the one piece of key material that is not secret, the ssh login.
 */
export interface BackupSource {
  project: Project;
  exported: string;
  keys: Array<AccessKey & { sshLogin: string | null }>;
  repositories: Repository[];
  inventories: Inventory[];
  environments: Environment[];
  views: View[];
  templates: Template[];
  schedules: Schedule[];
  integrations: Array<Integration & { matchers: Matcher[]; values: ExtractValue[] }>;
  workflows: Workflow[];
}

/**
 * Numbers each kind 1, 2, ... in list order and points references at those numbers, so a
 * backup carries no database id of this server. A reference to something outside the lists
 * (which the services never allow) becomes null rather than a dangling number.
 */
class Renumber {
  private readonly ids = new Map<number, number>();
  add(dbId: number): number {
    const id = this.ids.size + 1;
    this.ids.set(dbId, id);
    return id;
  }
  ref(dbId: number | null): number | null {
    return dbId === null ? null : (this.ids.get(dbId) ?? null);
  }
}

/** The backup document. Every field is listed: nothing reaches the file by accident. */
export function presentBackup(src: BackupSource): ProjectBackup {
  const keys = new Renumber();
  const repos = new Renumber();
  const invs = new Renumber();
  const envs = new Renumber();
  const views = new Renumber();
  const tpls = new Renumber();
  const wfs = new Renumber();
  // Numbered first: schedules and integrations, written before them, may name a workflow;
  // inventories, written before templates, name the template a workspace is attached to.
  numberWorkflows(src.workflows, wfs);
  numberTemplates(src.templates, tpls);
  const p = src.project;
  return {
    meta: {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      exported: src.exported,
      name: p.name,
      type: p.type,
      alert: p.alert,
      alert_chat: p.alert_chat,
      max_parallel_tasks: p.max_parallel_tasks,
    },
    keys: src.keys.map((k) => ({
      id: keys.add(k.id),
      name: k.name,
      type: k.type,
      ...(k.type === 'ssh' ? { ssh: { login: k.sshLogin ?? '' } } : {}),
    })),
    repositories: src.repositories.map((r) => ({
      id: repos.add(r.id),
      name: r.name,
      git_url: r.git_url,
      git_branch: r.git_branch,
      ssh_key_id: keys.ref(r.ssh_key_id) ?? 0,
    })),
    inventories: src.inventories.map((i) => ({
      id: invs.add(i.id),
      name: i.name,
      type: i.type,
      inventory: i.inventory,
      ssh_key_id: keys.ref(i.ssh_key_id),
      become_key_id: keys.ref(i.become_key_id),
      repository_id: repos.ref(i.repository_id),
      git_branch: i.git_branch ?? null,
      template_id: tpls.ref(i.template_id),
    })),
    environments: src.environments.map((e) => ({
      id: envs.add(e.id),
      name: e.name,
      json: e.json,
      env: e.env,
      secrets: e.secrets.map((s) => ({ name: s.name, type: s.type })),
    })),
    views: src.views.map((v) => ({ id: views.add(v.id), title: v.title, position: v.position })),
    templates: src.templates.map((t) => ({
      id: tpls.ref(t.id)!,
      ...templateFields(t, {
        key: (id) => keys.ref(id),
        repository: (id) => repos.ref(id) ?? 0,
        environment: (id) => envs.ref(id) ?? 0,
        inventory: (id) => invs.ref(id),
        environments: (ids) => ids.flatMap((id) => envs.ref(id) ?? []),
        inventories: (ids) => ids.flatMap((id) => invs.ref(id) ?? []),
        view: (id) => views.ref(id),
        buildTemplate: (id) => tpls.ref(id),
      }),
    })),
    schedules: src.schedules.map((s) => ({
      name: s.name,
      ...(s.workflow_id !== null
        ? { workflow_id: wfs.ref(s.workflow_id) ?? 0 }
        : { template_id: tpls.ref(s.template_id) ?? 0 }),
      cron_format: s.cron_format,
      repository_id: repos.ref(s.repository_id),
      active: s.active,
      // A drift check's workspace is numbered as the backup numbers inventories.
      task_params: s.task_params
        ? (({ inventory_id, ...rest }) => ({
            ...rest,
            ...(inventory_id ? { inventory_id: invs.ref(inventory_id) ?? undefined } : {}),
          }))(s.task_params)
        : null,
      type: s.type,
    })),
    integrations: src.integrations.map((i) => ({
      name: i.name,
      ...(i.workflow_id !== null
        ? { workflow_id: wfs.ref(i.workflow_id) ?? 0 }
        : { template_id: tpls.ref(i.template_id) ?? 0 }),
      // Gantry's format names none as Gantry does (answers say "", Semaphore's value).
      auth_method: authMethodOf(i.auth_method),
      auth_header: i.auth_header,
      auth_secret_id: keys.ref(i.auth_secret_id),
      searchable: i.searchable,
      task_params: i.task_params,
      matchers: i.matchers.map((m) => ({
        name: m.name,
        match_type: m.match_type,
        body_data_type: m.body_data_type,
        key: m.key,
        method: m.method,
        value: m.value,
      })),
      extract_values: i.values.map((v) => ({
        name: v.name,
        value_source: v.value_source,
        body_data_type: v.body_data_type,
        key: v.key,
        variable_type: v.variable_type,
        variable: v.variable,
      })),
    })),
    workflows: src.workflows.map((w) => ({
      id: wfs.ref(w.id)!,
      name: w.name,
      description: w.description,
      nodes: w.nodes.map((n) =>
        backupNode(n, {
          template: (id) => tpls.ref(id),
          workflow: (id) => wfs.ref(id),
          inventory: (id) => invs.ref(id),
          environment: (id) => envs.ref(id),
        }),
      ),
      edges: w.edges,
      joins: w.joins,
    })),
  };
}

/** Workflows are numbered before any is written out: a node may run a workflow listed after its own. */
function numberWorkflows(workflows: Workflow[], wfs: Renumber): Workflow[] {
  for (const w of workflows) wfs.add(w.id);
  return workflows;
}

type Refs = Record<'template' | 'workflow' | 'inventory' | 'environment', (id: number) => number | null>;

/**
 * A node with its ids renumbered as the backup's (shared by export and restore, which maps them
 * back); named approvers are left out, since a backup holds no users.
 */
export function backupNode(n: WorkflowNode, refs: Refs): WorkflowNode {
  const map = (id: number | null | undefined, to: (id: number) => number | null) => (id ? to(id) : (id ?? null));
  return {
    ...n,
    template_id: map(n.template_id, refs.template),
    workflow_id: map(n.workflow_id, refs.workflow),
    params: n.params
      ? {
          ...n.params,
          inventory_id: map(n.params.inventory_id, refs.inventory),
          environment_id: map(n.params.environment_id, refs.environment),
        }
      : n.params,
    approvers: n.approvers ? { ...n.approvers, users: [] } : n.approvers,
  };
}

/** Templates are numbered before any is written out: a deploy may name a build listed after it. */
function numberTemplates(templates: Template[], tpls: Renumber): Template[] {
  for (const t of templates) tpls.add(t.id);
  return templates;
}

/** `gantry-project-<id>-<name>.json`, with the name reduced to characters safe in a header. */
export function backupFileName(projectId: number, name: string): string {
  const safe = name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return `gantry-project-${projectId}-${safe || 'project'}.json`;
}
