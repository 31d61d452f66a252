import type { Generated } from 'kysely';

/** A task's saved Terraform plan (migration 037). */
export interface TerraformPlanTable {
  task_id: number;
  project_id: number;
  template_id: number;
  inventory_id: number | null;
  /** JSON text of PlanSummary (with the policy verdict). */
  summary: string;
  /** The role the policy asks to confirm this plan (or higher); null: the usual permission. */
  confirm_role: string | null;
  confirmed_by: number | null;
  confirmed_at: string | null;
  created: string;
}

/** The last drift check per template and workspace (migration 037). */
export interface TerraformDriftTable {
  /** `<template_id>:<inventory_id or 0>`. */
  scope: string;
  project_id: number;
  template_id: number;
  inventory_id: number | null;
  status: string;
  checked_at: string;
  /** JSON text of PlanSummary when drifted. */
  summary: string | null;
  task_id: number | null;
  refresh_only: number;
}

export interface TerraformStateTable {
  id: Generated<number>;
  project_id: number;
  inventory_id: number;
  task_id: number | null;
  status: string;
  /** Sealed with the SecretBox. */
  state: string;
  created: string;
  serial: number | null;
  lineage: string | null;
  resource_count: number | null;
  /** The alias that wrote it through the HTTP backend (null: a task, or a local-backend run). */
  writer_alias: string | null;
}

/** A backend address of a workspace: a key's login/password opens it, or a running task's one-time password. */
export interface TerraformAliasTable {
  id: string;
  project_id: number;
  inventory_id: number;
  auth_key_id: number | null;
  task_id: number | null;
  /** A task's one-time password, sealed with the SecretBox. */
  secret: string | null;
  created: string;
}

/** The lock of a workspace's state (one at most); `task_id` when a task holds it for its run. */
export interface TerraformLockTable {
  inventory_id: number;
  project_id: number;
  lock_id: string;
  /** The lock information (JSON) terraform sent, answered with 423 to the next one. */
  info: string;
  task_id: number | null;
  created: string;
}

/** A workspace whose tasks keep their state in Gantry's HTTP backend. */
export interface TerraformBackendTable {
  inventory_id: number;
  project_id: number;
  created: string;
}
