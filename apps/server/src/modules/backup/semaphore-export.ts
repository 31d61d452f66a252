import type { ProjectBackup } from '@gantry/contracts';
import { toSemaphoreSurveyVar } from './semaphore-survey.js';

/**
 * Semaphore names are its references, so each kind's names must be unique in the file (Gantry's
 * need not be): a repeated name gets " (2)", " (3)"... as Semaphore's own export renames them.
 */
class UniqueNames {
  private readonly byId = new Map<number, string>();
  private readonly used = new Set<string>();

  add(id: number, name: string): string {
    let unique = name;
    for (let n = 2; this.used.has(unique); n++) unique = `${name} (${n})`;
    this.used.add(unique);
    this.byId.set(id, unique);
    return unique;
  }

  ref(id: number | null): string | null {
    return id === null ? null : (this.byId.get(id) ?? null);
  }
}

/**
 * A Gantry backup written in Semaphore UI's backup format, for a team moving back: references by
 * name, Semaphore's field names and values (`auth_method` "" for none, each template's first
 * schedule also as its `cron`). Fields Semaphore has no place for are added under their Gantry
 * names (`allow_extra_vars_in_task`, an inventory's `repository`, a secret list per variable
 * group): Semaphore ignores them and a Gantry restore reads them back, so nothing but secrets is lost.
 */
export function toSemaphore(b: ProjectBackup) {
  const keys = new UniqueNames();
  const repos = new UniqueNames();
  const invs = new UniqueNames();
  const envs = new UniqueNames();
  const views = new UniqueNames();
  const tpls = new UniqueNames();
  const keyList = b.keys.map((k) => ({ name: keys.add(k.id, k.name), type: k.type }));
  const repositories = b.repositories.map((r) => ({
    name: repos.add(r.id, r.name),
    git_url: r.git_url,
    git_branch: r.git_branch,
    ssh_key: keys.ref(r.ssh_key_id),
  }));
  const inventories = b.inventories.map((i) => ({
    name: invs.add(i.id, i.name),
    inventory: i.inventory,
    type: i.type,
    ssh_key: keys.ref(i.ssh_key_id),
    become_key: keys.ref(i.become_key_id),
    repository: repos.ref(i.repository_id),
    git_branch: i.git_branch ?? null,
  }));
  const environments = b.environments.map((e) => ({
    name: envs.add(e.id, e.name),
    password: null,
    json: e.json,
    env: e.env,
    secrets: e.secrets.map((s) => ({ name: s.name, type: s.type })),
  }));
  const viewList = b.views.map((v) => ({ title: views.add(v.id, v.title), position: v.position }));
  for (const t of b.templates) tpls.add(t.id, t.name);
  const templates = b.templates.map((t) => ({
    name: tpls.ref(t.id),
    description: t.description,
    type: t.type,
    app: t.app,
    playbook: t.playbook,
    arguments: t.arguments,
    inventory: invs.ref(t.inventory_id),
    repository: repos.ref(t.repository_id),
    environment: envs.ref(t.environment_id),
    // Semaphore's newer list of variable groups; `inventories` is Gantry's own (Semaphore ignores it).
    environments: t.environment_ids.flatMap((id) => envs.ref(id) ?? []),
    inventories: t.inventory_ids.flatMap((id) => invs.ref(id) ?? []),
    view: views.ref(t.view_id),
    build_template: tpls.ref(t.build_template_id),
    start_version: t.start_version,
    git_branch: t.git_branch,
    runner_tag: t.runner_tag,
    autorun: t.autorun,
    allow_override_args_in_task: t.allow_override_args_in_task,
    allow_override_branch_in_task: t.allow_override_branch_in_task,
    allow_extra_vars_in_task: t.allow_extra_vars_in_task,
    suppress_success_alerts: t.suppress_success_alerts,
    survey_vars: t.survey_vars.map(toSemaphoreSurveyVar),
    vaults: t.vaults.map((v) => ({
      name: v.name,
      type: v.type,
      script: v.script,
      vault_key: keys.ref(v.vault_key_id),
    })),
    // Run-time choices name groups and inventories: by name here, as every reference in this format.
    task_params: {
      ...t.task_params,
      environment_choices: (t.task_params.environment_choices ?? []).flatMap((id) => envs.ref(id) ?? []),
      inventory_choices: (t.task_params.inventory_choices ?? []).flatMap((id) => invs.ref(id) ?? []),
    },
    cron: b.schedules.find((s) => s.template_id === t.id && s.type !== 'drift_check')?.cron_format ?? null,
  }));
  return {
    meta: {
      name: b.meta.name,
      alert: b.meta.alert,
      alert_chat: b.meta.alert_chat,
      max_parallel_tasks: b.meta.max_parallel_tasks,
      type: b.meta.type,
    },
    templates,
    repositories,
    keys: keyList,
    views: viewList,
    inventories,
    environments,
    // Semaphore has no workflows: a workflow's schedules and integrations are left out (the Gantry format keeps them).
    // Nor drift checks: Semaphore would run one as a plain schedule of the template (which may apply).
    schedules: b.schedules
      .filter((s) => !s.workflow_id && s.type !== 'drift_check')
      .map((s) => ({
        name: s.name,
        cron_format: s.cron_format,
        active: s.active,
        template: tpls.ref(s.template_id ?? null),
        checkable_repository: repos.ref(s.repository_id),
        ...(s.task_params ? { task_params: s.task_params } : {}),
      })),
    integrations: b.integrations
      .filter((i) => !i.workflow_id)
      .map((i) => ({
        name: i.name,
        template: tpls.ref(i.template_id ?? null),
        auth_method: i.auth_method === 'none' ? '' : i.auth_method,
        auth_header: i.auth_header ?? '',
        auth_secret: keys.ref(i.auth_secret_id),
        searchable: i.searchable,
        task_params: i.task_params,
        matchers: i.matchers.map((m) => ({ ...m, body_data_type: m.body_data_type ?? '' })),
        extract_values: i.extract_values.map((v) => ({ ...v, body_data_type: v.body_data_type ?? '' })),
        aliases: [],
      })),
    integration_aliases: [],
  };
}
export type SemaphoreExport = ReturnType<typeof toSemaphore>;
