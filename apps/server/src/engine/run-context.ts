import { parseArgumentList, taskParamsSchema, templateTaskParamsSchema, type TaskParams, type TemplateTaskParams } from '@gantry/contracts';
import type { SecretBox } from '../platform/crypto.js';
import type { EnvironmentsService } from '../modules/environments/environments.service.js';
import type { InventoriesService } from '../modules/inventories/inventories.service.js';
import type { InventoryRow } from '../modules/inventories/inventories.repository.js';
import type { KeySecret, KeysService } from '../modules/keys/keys.service.js';
import type { RepositoriesService } from '../modules/repositories/repositories.service.js';
import type { RepositoryRow } from '../modules/repositories/repositories.repository.js';
import type { TaskRow } from '../modules/tasks/tasks.repository.js';
import type { TemplatesService } from '../modules/templates/templates.service.js';
import type { TemplateWithExtras } from '../modules/templates/templates.repository.js';

export interface RepoWithKey {
  row: Pick<RepositoryRow, 'git_url' | 'git_branch'>;
  key: KeySecret | null;
}

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

/** Everything one run needs, loaded and decrypted in one place, for that run only. Plain data, so a remote runner can receive it (sealed) in a job package. */
export interface RunContext {
  task: Pick<TaskRow, 'id' | 'project_id' | 'template_id' | 'commit_hash'>;
  template: Pick<TemplateWithExtras, 'id' | 'app' | 'playbook'>;
  params: TaskParams;
  /** The template's own run options (defaults and what a task may override). */
  templateParams: TemplateTaskParams;
  repository: RepoWithKey;
  inventory: Pick<InventoryRow, 'id' | 'type' | 'inventory'> | null;
  inventoryRepository: RepoWithKey | null;
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
}

export interface RunContextDeps {
  templates: TemplatesService;
  repositories: RepositoriesService;
  inventories: InventoriesService;
  environments: EnvironmentsService;
  keys: KeysService;
  box: SecretBox;
  terraformBackend?: TerraformBackendPort;
}

const parseObject = (text: string | null | undefined): Record<string, unknown> => {
  try {
    const v: unknown = JSON.parse(text || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

export async function loadRunContext(d: RunContextDeps, task: TaskRow): Promise<RunContext> {
  const p = task.project_id;
  const template = await d.templates.get(p, task.template_id);
  const secrets: string[] = [];
  const keyOf = async (id: number | null): Promise<KeySecret | null> => {
    if (!id) return null;
    const k = await d.keys.secretOf(p, id);
    if (k?.type === 'ssh') secrets.push(k.passphrase, ...k.private_key.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----')));
    if (k?.type === 'login_password') secrets.push(k.password);
    return k;
  };
  const repoRow = await d.repositories.get(p, template.repository_id);
  const repository = { row: { git_url: repoRow.git_url, git_branch: repoRow.git_branch }, key: await keyOf(repoRow.ssh_key_id) };

  const inventoryId = task.inventory_id ?? template.inventory_id;
  const inventory = inventoryId ? await d.inventories.get(p, inventoryId) : null;
  let inventoryRepository: RepoWithKey | null = null;
  if (inventory?.type === 'file' && inventory.repository_id && inventory.repository_id !== repoRow.id) {
    const r = await d.repositories.get(p, inventory.repository_id);
    inventoryRepository = { row: { git_url: r.git_url, git_branch: r.git_branch }, key: await keyOf(r.ssh_key_id) };
  }

  const vaults = [];
  for (const v of template.vaults) {
    const key = v.type === 'password' ? await keyOf(v.vault_key_id) : null;
    vaults.push({ name: v.name, type: v.type === 'script' ? ('script' as const) : ('password' as const), password: key?.type === 'login_password' ? key.password : null, script: v.script });
  }

  const environment = await d.environments.get(p, template.environment_id);
  const groupSecrets = await d.environments.secretValues(p, environment.id);
  const taskSecrets = task.secret ? parseObject(d.box.open(task.secret)) : {};
  for (const s of groupSecrets) secrets.push(s.value);
  for (const v of Object.values(taskSecrets)) if (typeof v === 'string') secrets.push(v);

  // Who set a value decides how it is used: managers' values may be templates, task input never.
  const trustedVars: Record<string, unknown> = {
    ...parseObject(environment.json),
    ...Object.fromEntries(groupSecrets.filter((s) => s.type === 'var').map((s) => [s.name, s.value])),
  };
  const untrustedVars: Record<string, unknown> = { ...parseObject(task.environment), ...taskSecrets };
  const groupEnv: Record<string, string> = {
    ...Object.fromEntries(Object.entries(parseObject(environment.env)).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])),
    ...Object.fromEntries(groupSecrets.filter((s) => s.type === 'env').map((s) => [s.name, s.value])),
  };
  const taskEnv = Object.fromEntries(Object.entries(parseObject(task.env)).filter((e): e is [string, string] => typeof e[1] === 'string'));

  // A terraform/tofu run on a workspace whose backend is on keeps its state in Gantry (and holds its lock).
  const isWorkspace = inventory?.type === 'terraform-workspace' || inventory?.type === 'tofu-workspace';
  const terraformBackend =
    inventory && isWorkspace && (template.app === 'terraform' || template.app === 'tofu') && d.terraformBackend
      ? await d.terraformBackend.openSession(task, inventory.id)
      : null;
  if (terraformBackend) secrets.push(terraformBackend.password);

  return {
    task: { id: task.id, project_id: task.project_id, template_id: task.template_id, commit_hash: task.commit_hash },
    template: { id: template.id, app: template.app, playbook: template.playbook },
    params: taskParamsSchema.parse(JSON.parse(task.params || '{}')),
    templateParams: templateTaskParamsSchema.parse(JSON.parse(template.task_params || '{}')),
    repository,
    inventory: inventory ? { id: inventory.id, type: inventory.type, inventory: inventory.inventory } : null,
    inventoryRepository,
    inventoryKey: await keyOf(inventory?.ssh_key_id ?? null),
    becomeKey: await keyOf(inventory?.become_key_id ?? null),
    vaults,
    trustedVars,
    untrustedVars,
    groupEnv,
    taskEnv,
    args: [...(parseArgumentList(template.arguments) ?? []), ...(parseArgumentList(task.arguments) ?? [])],
    branch: task.git_branch || template.git_branch || repoRow.git_branch || null,
    secrets: secrets.filter(Boolean),
    terraformBackend,
  };
}
