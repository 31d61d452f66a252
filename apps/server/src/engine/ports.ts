import type { ProjectRole, TaskParams, TemplateTaskParams } from '@gantry/contracts';
import type { Selectable } from 'kysely';
import type {
  EnvironmentTable,
  InventoryTable,
  RepositoryTable,
  ScheduleTable,
  TaskTable,
  TemplateTable,
  TemplateVaultTable,
} from '../db/types.js';
import type { SecretBox } from '../platform/crypto.js';
import type { LocalPathCheck } from '../platform/local-paths.js';
import type { RunInventory } from './run-inventories.js';

/*
 * What the task engine needs from the rest of the server, declared here, on the engine's side.
 * The engine imports nothing from `modules/`: the composition root (services.ts, wiring/) hands it the
 * modules' repositories and services, which fit these ports by shape. Modules may import these
 * port types (they implement them); they never import the engine's internals.
 */

/** One stored line of a task's log. */
export interface LogLine {
  task_id: number;
  seq: number;
  time: string;
  output: string;
}

/** Where a run's log lines are stored (in batches). */
export interface LogStore {
  appendOutput(lines: LogLine[]): Promise<void>;
}

/** A task as stored: the row the engine runs. */
export type TaskRecord = Selectable<TaskTable>;

/** A waiting task with what the dispatcher weighs before claiming it. */
export interface WaitingTask {
  id: number;
  project_id: number;
  template_id: number;
  version: string | null;
  max_parallel_tasks: number;
}

/** The task table as the dispatcher and a run use it; every status write is conditional. */
export interface TaskStore extends LogStore {
  findById(id: number): Promise<TaskRecord | undefined>;
  waiting(limit: number): Promise<WaitingTask[]>;
  countActive(projectId?: number): Promise<number>;
  /** waiting -> starting for this node, exactly once across nodes. */
  claim(id: number, nodeId: string, start: string): Promise<boolean>;
  /** One of `from` -> `to`; with `ownerNode`, only while that node owns the task. */
  transition(
    id: number,
    from: readonly string[],
    to: string,
    patch?: Partial<TaskRecord>,
    ownerNode?: string,
  ): Promise<boolean>;
  setEndIfMissing(id: number, end: string): Promise<void>;
  update(id: number, patch: Partial<TaskRecord>): Promise<void>;
}

/** A decrypted access key, for one run only. */
export type KeySecret =
  | { type: 'ssh'; login: string; passphrase: string; private_key: string }
  | { type: 'login_password'; login: string; password: string };

/** Decrypted keys of a project. */
export interface SecretSource {
  secretOf(projectId: number, id: number): Promise<KeySecret | null>;
  /** The key's name when its type needs a secret it does not have (restored from a backup); else null. */
  emptyKeyName?(projectId: number, id: number): Promise<string | null>;
}

export type TemplateSource = Pick<
  Selectable<TemplateTable>,
  | 'id'
  | 'type'
  | 'app'
  | 'playbook'
  | 'repository_id'
  | 'inventory_id'
  | 'environment_id'
  | 'environment_ids'
  | 'inventory_ids'
  | 'task_params'
  | 'arguments'
  | 'git_branch'
> & { vaults: Array<Pick<Selectable<TemplateVaultTable>, 'name' | 'type' | 'vault_key_id' | 'script'>> };
export type RepositorySource = Pick<Selectable<RepositoryTable>, 'id' | 'git_url' | 'git_branch' | 'ssh_key_id'>;
export type InventorySource = Pick<
  Selectable<InventoryTable>,
  'id' | 'type' | 'inventory' | 'repository_id' | 'ssh_key_id' | 'become_key_id'
> & { git_branch?: string | null };
export type EnvironmentSource = Pick<Selectable<EnvironmentTable>, 'id' | 'name' | 'json' | 'env'>;

/** A run's way into Gantry's Terraform HTTP state backend: the address path and one-time credentials. */
export interface TerraformBackendSession {
  /** `/api/terraform/{alias}`: the executor puts the server's address in front. */
  path: string;
  username: string;
  password: string;
}

/** Gantry's Terraform HTTP state backend, for terraform/tofu runs on a workspace that keeps its state there. */
export interface TerraformBackendPort {
  /** Null when the workspace's backend is off; throws (saying who holds it) when its state is locked. */
  openSession(task: { id: number; project_id: number }, inventoryId: number): Promise<TerraformBackendSession | null>;
}

/** Who started a task, as its run needs them: their login, and their standing in the task's project. */
export interface TaskAuthor {
  username: string;
  admin: boolean;
  role: ProjectRole | null;
}

/** The project resources a run is made of, each read by id within its project. */
export interface RunSources {
  templates: { get(projectId: number, id: number): Promise<TemplateSource> };
  repositories: { get(projectId: number, id: number): Promise<RepositorySource> };
  inventories: { get(projectId: number, id: number): Promise<InventorySource> };
  environments: {
    get(projectId: number, id: number): Promise<EnvironmentSource>;
    secretValues(projectId: number, id: number): Promise<Array<{ name: string; type: string; value: string }>>;
  };
  keys: SecretSource;
  box: SecretBox;
  terraformBackend?: TerraformBackendPort;
  /** GANTRY_ALLOWED_LOCAL_PATHS, checked again when each run starts (rows may predate it). */
  localPaths: LocalPathCheck;
  /** A task's author by user id (null when the user is gone). */
  authors?: { get(projectId: number, userId: number): Promise<TaskAuthor | null> };
  /** The console's public address (GANTRY_WEB_HOST) without a trailing slash; '' when not set. */
  webHost?: string;
  /** URL inventories: the server fetches their text; every `file`/`url` read's outcome is recorded. */
  inventoryReads?: {
    fetchUrl(url: string): Promise<string>;
    record(projectId: number, inventoryId: number, error: string | null): Promise<void>;
  };
}

/** A task's repository and the key to clone it with. */
export interface RepoWithKey {
  row: Pick<RepositorySource, 'git_url' | 'git_branch'>;
  key: KeySecret | null;
}

/** Everything one run needs, loaded and decrypted in one place, for that run only. Plain data, so a remote runner can receive it (sealed) in a job package. */
export interface RunContext {
  task: Pick<TaskRecord, 'id' | 'project_id' | 'template_id' | 'commit_hash'>;
  template: Pick<TemplateSource, 'id' | 'app' | 'playbook'>;
  params: TaskParams;
  /** The template's own run options (defaults and what a task may override). */
  templateParams: TemplateTaskParams;
  repository: RepoWithKey;
  inventory: Pick<InventorySource, 'id' | 'type' | 'inventory'> | null;
  inventoryRepository: RepoWithKey | null;
  /**
   * Every inventory of an Ansible run in `-i` order (the first is `inventory`); absent in a job
   * from an older server, which runs `inventory` (and `inventoryRepository`) alone.
   */
  inventories?: RunInventory[];
  inventoryKey: KeySecret | null;
  becomeKey: KeySecret | null;
  vaults: Array<{ name: string | null; type: 'password' | 'script'; password: string | null; script: string | null }>;
  /** Extra variables set by managers (the variable group and its secret variables): Ansible may render Jinja in them. */
  trustedVars: Record<string, unknown>;
  /**
   * Extra variables from task input (survey answers, a task's extra variables, an integration's
   * values): data only, given to Ansible as `!unsafe` so Jinja in them is never rendered.
   */
  untrustedVars: Record<string, unknown>;
  /** Environment variables of the variable group (and its secret ones). */
  groupEnv: Record<string, string>;
  /** Environment variables from task input (an integration's extracted values). */
  taskEnv: Record<string, string>;
  args: string[];
  branch: string | null;
  /** Every secret value of the run, for masking the log. */
  secrets: string[];
  /** Set when a terraform/tofu run keeps its workspace's state in Gantry's HTTP backend. */
  terraformBackend?: TerraformBackendSession | null;
  /** What the server knows of the task (Semaphore's `semaphore_vars.task_details`); absent in a job from an older server. */
  taskDetails?: TaskDetails;
  /** Gantry's own lines for the top of the run's log (why an option asked for was not applied). */
  notices?: string[];
  /**
   * Outputs of earlier workflow nodes, `{nodeId: output}` (task.inputs): data only, given to
   * Ansible as the `!unsafe` extra variable gantry_outputs, to scripts as GANTRY_OUTPUTS (JSON).
   * Absent in a job from an older server, null for a task given none.
   */
  inputs?: Record<string, unknown> | null;
}

/**
 * The task as its run is told about it, computed by the server from the task row, never from
 * task input (Semaphore's `task_details`). Text fields are user-written: data, never templates.
 */
export interface TaskDetails {
  id: number;
  /** The author's login; '' when a schedule, an integration or an autorun started the task. */
  username: string;
  /** The task in the console; null when GANTRY_WEB_HOST is not set. */
  url: string | null;
  /** Only when the task has one. */
  message?: string;
  /** Only for build and deploy templates. */
  type?: 'build' | 'deploy';
  /** A build's version. */
  target_version?: string | null;
  /** The version of the build a deploy deploys. */
  incoming_version?: string;
}

/** The task folders a work root holds, for removing the ones crashed runs left behind. */
export interface TaskWorkspaceStore {
  /** Ids of the `task_<id>` folders present now. */
  taskIds(): number[];
  remove(taskId: number): void;
}

/** The checkouts a node keeps for its projects' runs (engine/checkout-cache.ts). */
export interface ProjectCheckouts {
  /** Removes the project's kept checkouts; answers how many. */
  clearProject(projectId: number): Promise<number>;
  /** Removes the kept checkouts of every project not in `existing` (deleted ones); answers how many. */
  pruneProjects(existing: ReadonlySet<number>): Promise<number>;
}

export type ScheduleRecord = Selectable<ScheduleTable>;

/** The schedule table as the scheduler uses it: each due time is claimed before it fires. */
export interface ScheduleStore {
  allActive(): Promise<ScheduleRecord[]>;
  claim(id: number, due: string): Promise<boolean>;
  setCommit(id: number, from: string | null, to: string): Promise<boolean>;
}
