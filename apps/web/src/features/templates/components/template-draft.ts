import type {
  ApprovalPolicy,
  SurveyVar,
  Template,
  TemplateInput,
  TemplateTaskParams,
  TemplateType,
} from '@gantry/contracts';
import type { VaultDraft } from './vaults-editor';

/** The template form's state: ids as '' when unset, lists as comma text. */
export interface TemplateDraft {
  type: TemplateType;
  app: string;
  name: string;
  description: string;
  playbook: string;
  repository_id: number | '';
  /** In merge order; the first is the main group (environment_id). */
  environment_ids: number[];
  /** In `-i` order (Ansible); a workspace template has at most one. */
  inventory_ids: number[];
  view_id: number | '';
  git_branch: string;
  arguments: string;
  allow_override_args_in_task: boolean;
  allow_override_branch_in_task: boolean;
  allow_extra_vars_in_task: boolean;
  suppress_success_alerts: boolean;
  start_version: string;
  build_template_id: number | '';
  autorun: boolean;
  survey_vars: SurveyVar[];
  vaults: VaultDraft[];
  task_params: TemplateTaskParams;
  limit: string;
  tags: string;
  skip_tags: string;
  /** Null: tasks start at once; else they wait for approval (the form's Approval section). */
  approval_policy: ApprovalPolicy | null;
}

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

export function draftFrom(t: Template | null, copy = false): TemplateDraft {
  const tp: TemplateTaskParams = t?.task_params ?? {
    limit: [],
    tags: [],
    skip_tags: [],
    allow_debug: false,
    allow_override_limit: false,
    allow_override_tags: false,
    allow_override_skip_tags: false,
    allow_override_inventory: false,
    auto_approve: false,
    allow_auto_approve: false,
    allow_destroy: false,
    inventory_choices: [],
    allow_override_environment: false,
    environment_choices: [],
    branch_choices: [],
  };
  return {
    type: t?.type ?? '',
    app: t?.app ?? 'ansible',
    name: t ? (copy ? `${t.name} (copy)` : t.name) : '',
    description: t?.description ?? '',
    playbook: t?.playbook ?? '',
    repository_id: t?.repository_id ?? '',
    environment_ids: t ? (t.environment_ids?.length ? t.environment_ids : [t.environment_id]) : [],
    inventory_ids: t ? (t.inventory_ids?.length ? t.inventory_ids : t.inventory_id ? [t.inventory_id] : []) : [],
    view_id: t?.view_id ?? '',
    git_branch: t?.git_branch ?? '',
    arguments: t?.arguments ?? '',
    allow_override_args_in_task: t?.allow_override_args_in_task ?? false,
    allow_override_branch_in_task: t?.allow_override_branch_in_task ?? false,
    allow_extra_vars_in_task: t?.allow_extra_vars_in_task ?? false,
    suppress_success_alerts: t?.suppress_success_alerts ?? false,
    start_version: t?.start_version ?? '',
    build_template_id: t?.build_template_id ?? '',
    autorun: t?.autorun ?? false,
    survey_vars: t?.survey_vars ?? [],
    vaults: (t?.vaults ?? []).map((v) => ({
      name: v.name ?? '',
      type: v.type,
      vault_key_id: v.vault_key_id,
      script: v.script,
    })),
    task_params: tp,
    limit: tp.limit.join(', '),
    tags: tp.tags.join(', '),
    skip_tags: tp.skip_tags.join(', '),
    approval_policy: t?.approval_policy ?? null,
  };
}

/** The request body the contracts' template schema checks. */
export function draftBody(d: TemplateDraft): TemplateInput {
  return {
    type: d.type,
    app: d.app as TemplateInput['app'],
    name: d.name,
    description: d.description,
    playbook: d.playbook,
    repository_id: d.repository_id === '' ? (undefined as unknown as number) : d.repository_id,
    environment_id: d.environment_ids[0] ?? null,
    environment_ids: d.environment_ids,
    inventory_id: d.inventory_ids[0] ?? null,
    inventory_ids: d.inventory_ids,
    view_id: d.view_id || null,
    git_branch: d.git_branch || null,
    arguments: d.arguments || null,
    allow_override_args_in_task: d.allow_override_args_in_task,
    allow_override_branch_in_task: d.allow_override_branch_in_task,
    allow_extra_vars_in_task: d.allow_extra_vars_in_task,
    suppress_success_alerts: d.suppress_success_alerts,
    start_version: d.start_version || null,
    build_template_id: d.build_template_id || null,
    autorun: d.autorun,
    survey_vars: d.survey_vars,
    vaults: d.vaults,
    task_params: { ...d.task_params, limit: list(d.limit), tags: list(d.tags), skip_tags: list(d.skip_tags) },
    approval_policy: d.approval_policy,
  };
}
