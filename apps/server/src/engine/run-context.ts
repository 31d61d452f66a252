import {
  Permission,
  can,
  parseArgumentList,
  permissionsFor,
  taskParamsSchema,
  templateTaskParamsSchema,
  type TaskParams,
  type TemplateTaskParams,
} from '@gantry/contracts';
import type { KeySecret, RepoWithKey, RunContext, RunSources, TaskAuthor, TaskRecord } from './ports.js';
import { taskDetails } from './task-details.js';
import { parseStoredObject } from './task-outputs.js';
import { loadRunInventories } from './run-inventories.js';
import { templateIdList } from '../db/template-lists.js';

export type { RepoWithKey, RunContext };

/** The project resources a run is loaded from (the engine's RunSources port). */
export type RunContextDeps = RunSources;

const parseObject = (text: string | null | undefined): Record<string, unknown> => {
  try {
    const v: unknown = JSON.parse(text || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

function refuseLocalPath(problem: string | null): void {
  if (problem) throw new Error(problem);
}

/** The first line of the log of a task whose debug request was not applied. */
export const DEBUG_REFUSED = 'Debug was not enabled: the template does not allow it for your role';

/**
 * A task's debug request, applied when its template allows debug or its author may edit the
 * project's templates (managers, owners, admins); otherwise the task runs without it and its log
 * says why. Decided here, for every run, whatever the stored row asks.
 */
function applyDebug(
  params: TaskParams,
  tp: TemplateTaskParams,
  author: TaskAuthor | null,
): { params: TaskParams; notices: string[] } {
  if (!params.debug || tp.allow_debug) return { params, notices: [] };
  if (author && can(permissionsFor(author.role, author.admin), Permission.manageProjectResources))
    return { params, notices: [] };
  return { params: { ...params, debug: false }, notices: [DEBUG_REFUSED] };
}

/** A key the run uses has no secret: a restored project's keys come back without theirs. */
export function emptyKeyNotice(name: string): string {
  return `Key "${name}" has no secret (keys come back empty from a backup): fill it in under Keys`;
}

/** A secret of the variable group is empty, as a restored project's secrets are. */
export function emptySecretNotice(group: string, name: string): string {
  return `Secret ${name} of variable group "${group}" is empty (secrets come back empty from a backup): set it under Variable Groups`;
}

export async function loadRunContext(d: RunContextDeps, task: TaskRecord): Promise<RunContext> {
  const p = task.project_id;
  const template = await d.templates.get(p, task.template_id);
  const secrets: string[] = [];
  // Secrets a restore left empty: the run goes on (the step that needs one fails), and says why first.
  const emptyNotices: string[] = [];
  // Keys are read in parallel (below) and taken in a fixed order, so notices keep their order.
  const readKey = async (id: number | null) => {
    if (!id) return null;
    const k = await d.keys.secretOf(p, id);
    return { k, empty: k ? null : await d.keys.emptyKeyName?.(p, id) };
  };
  const takeKey = (read: Awaited<ReturnType<typeof readKey>>): KeySecret | null => {
    if (!read) return null;
    const { k, empty } = read;
    if (empty && !emptyNotices.some((n) => n.includes(`"${empty}"`))) emptyNotices.push(emptyKeyNotice(empty));
    if (k?.type === 'ssh')
      secrets.push(k.passphrase, ...k.private_key.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----')));
    if (k?.type === 'login_password') secrets.push(k.password);
    return k ?? null;
  };
  const repoRow = await d.repositories.get(p, template.repository_id);
  // Before any checkout, here or on a runner: a row saved before the rule, or before an admin
  // narrowed GANTRY_ALLOWED_LOCAL_PATHS, fails its task with the reason.
  refuseLocalPath(d.localPaths.repositoryProblem(repoRow.git_url));
  // A task's chosen inventory replaces the template's list (the first is the one that gives keys).
  const inventoryRows = await Promise.all(
    (task.inventory_id ? [task.inventory_id] : templateIdList(template.inventory_id, template.inventory_ids)).map(
      (id) => d.inventories.get(p, id),
    ),
  );
  const inventory = inventoryRows[0] ?? null;
  for (const row of inventoryRows)
    if (row.type === 'file') refuseLocalPath(d.localPaths.inventoryProblem(row.inventory));
  const inventoryRepoRow =
    inventory?.type === 'file' && inventory.repository_id && inventory.repository_id !== repoRow.id
      ? await d.repositories.get(p, inventory.repository_id)
      : null;
  if (inventoryRepoRow) refuseLocalPath(d.localPaths.repositoryProblem(inventoryRepoRow.git_url));

  // What is left depends only on the rows above: one round trip's wait instead of one per read.
  // A task's own group (chosen at run time or by a workflow node) replaces the template's list.
  const groupIds = task.environment_id
    ? [task.environment_id]
    : templateIdList(template.environment_id, template.environment_ids);
  const [repoKey, inventoryRepoKey, vaultKeys, groups, author, inventoryKeyRead, becomeKeyRead] =
    await Promise.all([
      readKey(repoRow.ssh_key_id),
      readKey(inventoryRepoRow?.ssh_key_id ?? null),
      Promise.all(template.vaults.map((v) => (v.type === 'password' ? readKey(v.vault_key_id) : null))),
      Promise.all(
        groupIds.map((id) =>
          d.environments
            .get(p, id)
            .then(async (row) => ({ row, secrets: await d.environments.secretValues(p, row.id) })),
        ),
      ),
      task.user_id && d.authors ? d.authors.get(p, task.user_id) : null,
      readKey(inventory?.ssh_key_id ?? null),
      readKey(inventory?.become_key_id ?? null),
    ]);
  const repository = { row: { git_url: repoRow.git_url, git_branch: repoRow.git_branch }, key: takeKey(repoKey) };
  const inventoryRepository: RepoWithKey | null = inventoryRepoRow
    ? {
        row: { git_url: inventoryRepoRow.git_url, git_branch: inventoryRepoRow.git_branch },
        key: takeKey(inventoryRepoKey),
      }
    : null;
  const vaults = template.vaults.map((v, i) => {
    const key = takeKey(vaultKeys[i] ?? null);
    return {
      name: v.name,
      type: v.type === 'script' ? ('script' as const) : ('password' as const),
      password: key?.type === 'login_password' ? key.password : null,
      script: v.script,
    };
  });
  const taskSecrets = task.secret ? parseObject(d.box.open(task.secret)) : {};
  for (const g of groups) {
    for (const s of g.secrets) secrets.push(s.value);
    for (const s of g.secrets) if (s.value === '') emptyNotices.push(emptySecretNotice(g.row.name, s.name));
  }
  for (const v of Object.values(taskSecrets)) if (typeof v === 'string') secrets.push(v);

  // Who set a value decides how it is used: managers' values may be templates, task input never.
  // Several groups merge in order, each group's secrets over its plain values: later wins.
  const trustedVars: Record<string, unknown> = {};
  const groupEnv: Record<string, string> = {};
  for (const g of groups) {
    Object.assign(
      trustedVars,
      parseObject(g.row.json),
      Object.fromEntries(g.secrets.filter((s) => s.type === 'var').map((s) => [s.name, s.value])),
    );
    Object.assign(
      groupEnv,
      Object.fromEntries(
        Object.entries(parseObject(g.row.env)).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      ),
      Object.fromEntries(g.secrets.filter((s) => s.type === 'env').map((s) => [s.name, s.value])),
    );
  }
  const untrustedVars: Record<string, unknown> = { ...parseObject(task.environment), ...taskSecrets };
  const taskEnv = Object.fromEntries(
    Object.entries(parseObject(task.env)).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );

  // A terraform/tofu run on a workspace whose backend is on keeps its state in Gantry (and holds its lock).
  const isWorkspace = inventory?.type === 'terraform-workspace' || inventory?.type === 'tofu-workspace';
  const terraformBackend =
    inventory && isWorkspace && (template.app === 'terraform' || template.app === 'tofu') && d.terraformBackend
      ? await d.terraformBackend.openSession(task, inventory.id)
      : null;
  if (terraformBackend) secrets.push(terraformBackend.password);

  const inventories =
    template.app === 'ansible'
      ? await loadRunInventories(d, p, inventoryRows, repoRow, async (id) => takeKey(await readKey(id)))
      : undefined;
  const inventoryKey = takeKey(inventoryKeyRead);
  const becomeKey = takeKey(becomeKeyRead);
  const templateParams = templateTaskParamsSchema.parse(JSON.parse(template.task_params || '{}'));
  const debug = applyDebug(taskParamsSchema.parse(JSON.parse(task.params || '{}')), templateParams, author);

  return {
    task: { id: task.id, project_id: task.project_id, template_id: task.template_id, commit_hash: task.commit_hash },
    template: { id: template.id, app: template.app, playbook: template.playbook },
    params: debug.params,
    templateParams,
    repository,
    inventory: inventory ? { id: inventory.id, type: inventory.type, inventory: inventory.inventory } : null,
    inventoryRepository,
    inventories,
    inventoryKey,
    becomeKey,
    vaults,
    trustedVars,
    untrustedVars,
    groupEnv,
    taskEnv,
    args: [...(parseArgumentList(template.arguments) ?? []), ...(parseArgumentList(task.arguments) ?? [])],
    branch: task.git_branch || template.git_branch || repoRow.git_branch || null,
    secrets: secrets.filter(Boolean),
    terraformBackend,
    taskDetails: taskDetails(task, template.type, author, d.webHost ?? ''),
    // A refused debug request first: its author is looking for the output it asked for.
    notices: [...debug.notices, ...emptyNotices],
    inputs: parseStoredObject(task.inputs),
  };
}
