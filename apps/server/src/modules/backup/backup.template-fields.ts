import type { ProjectBackup } from '@gantry/contracts';

type BackupTemplate = ProjectBackup['templates'][number];

/** Where a template's references point, for an export (database id -> backup id) or a restore. */
export interface TemplateRefs {
  key(id: number | null): number | null;
  repository(id: number): number;
  environment(id: number): number;
  inventory(id: number | null): number | null;
  /** A list of variable groups / inventories (several per template, run-time choices): unresolved ones are left out. */
  environments(ids: readonly number[]): number[];
  inventories(ids: readonly number[]): number[];
  view(id: number | null): number | null;
  buildTemplate(id: number | null): number | null;
}

/**
 * A template's fields with every reference passed through `refs`: the one list that an export
 * writes and a restore reads back, so the two cannot drift apart. Each field is named, so nothing
 * reaches a backup by accident.
 */
export function templateFields(
  t: Omit<BackupTemplate, 'id' | 'approval_policy' | 'environment_ids' | 'inventory_ids'> & {
    approval_policy?: BackupTemplate['approval_policy'];
    environment_ids?: readonly number[];
    inventory_ids?: readonly number[];
  },
  refs: TemplateRefs,
): Omit<BackupTemplate, 'id'> {
  return {
    name: t.name,
    description: t.description,
    type: t.type,
    app: t.app,
    playbook: t.playbook,
    inventory_id: refs.inventory(t.inventory_id),
    repository_id: refs.repository(t.repository_id),
    environment_id: refs.environment(t.environment_id),
    environment_ids: refs.environments(t.environment_ids ?? []),
    inventory_ids: refs.inventories(t.inventory_ids ?? []),
    view_id: refs.view(t.view_id),
    git_branch: t.git_branch,
    runner_tag: t.runner_tag,
    start_version: t.start_version,
    build_template_id: refs.buildTemplate(t.build_template_id),
    autorun: t.autorun,
    arguments: t.arguments,
    allow_override_args_in_task: t.allow_override_args_in_task,
    allow_override_branch_in_task: t.allow_override_branch_in_task,
    allow_extra_vars_in_task: t.allow_extra_vars_in_task,
    suppress_success_alerts: t.suppress_success_alerts,
    survey_vars: t.survey_vars,
    vaults: t.vaults.map((v) => ({
      name: v.name,
      type: v.type,
      vault_key_id: refs.key(v.vault_key_id),
      script: v.script,
    })),
    // The run-time choices name variable groups and inventories: their ids are references too.
    task_params: {
      ...t.task_params,
      environment_choices: refs.environments(t.task_params.environment_choices ?? []),
      inventory_choices: refs.inventories(t.task_params.inventory_choices ?? []),
    },
    // Approvers are instance users and project roles: carried as they are (a restore keeps only members).
    approval_policy: t.approval_policy ?? null,
  };
}
