import type { ColumnType, Generated } from 'kysely';

export interface TemplateTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  description: string;
  type: string;
  app: string;
  playbook: string;
  inventory_id: number | null;
  repository_id: number;
  environment_id: number;
  view_id: number | null;
  git_branch: string | null;
  runner_tag: string | null;
  start_version: string | null;
  build_template_id: number | null;
  autorun: number;
  arguments: string | null;
  allow_override_args_in_task: number;
  allow_override_branch_in_task: number;
  allow_extra_vars_in_task: number;
  suppress_success_alerts: number;
  /** JSON list of survey variables. */
  survey_vars: string;
  /** JSON object of template task params. */
  task_params: string;
  created: string;
  /** JSON ApprovalPolicy: its tasks wait in `waiting_approval` until approved (migration 030); null for none. */
  approval_policy: string | null;
  /** Migration 034: JSON lists of ids in merge / `-i` order, first = environment_id / inventory_id; null: that one alone. */
  environment_ids: ColumnType<string | null, string | null | undefined, string | null>;
  inventory_ids: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface TemplateVaultTable {
  id: Generated<number>;
  project_id: number;
  template_id: number;
  name: string | null;
  type: string;
  vault_key_id: number | null;
  script: string | null;
}
