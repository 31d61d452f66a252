import {
  environmentInputSchema,
  extractValueInputSchema,
  integrationInputSchema,
  inventoryInputSchema,
  matcherInputSchema,
  repositoryInputSchema,
  scheduleInputSchema,
  templateInputSchema,
  viewInputSchema,
  WORKSPACE_INVENTORY_TYPES,
  type ProjectBackup,
  type RestoreResult,
  ErrorCodes,
} from '@gantry/contracts';
import { ValidationError } from '../../platform/errors.js';
import type { Actor } from '../../platform/resource-routes.js';
import { Pacer } from './backup.limits.js';
import { loginKey, Restored, RestoreNotes } from './backup.restore-refs.js';
import { restoredTarget, restoreWorkflows } from './backup.restore-workflows.js';
import { templateFields } from './backup.template-fields.js';
import type { RestoreServices } from './backup.transaction.js';

type BackupTemplate = ProjectBackup['templates'][number];

/** The restored objects of each kind a reference may name. */
interface Kinds {
  keys: Restored;
  repos: Restored;
  invs: Restored;
  envs: Restored;
  views: Restored;
  tpls: Restored;
}

/**
 * Recreates a backup as a new project owned by `actor`, through the services' own create
 * methods (so every check the API makes applies). Keys come back without material. Restored
 * schedules start inactive: with empty keys they could only fail, and a copy of a project must
 * not start running the original's jobs on its own. An object Gantry's rules refuse, or a
 * reference that does not fit, does not fail the restore: it is left out and listed in the
 * answer's `unmapped` (see RestoreNotes). Runs inside the caller's transaction, letting the event
 * loop run every few objects (on SQLite each write holds it; see RESTORE_YIELD_EVERY).
 */
export async function restoreProject(s: RestoreServices, actor: Actor, doc: ProjectBackup): Promise<RestoreResult> {
  checkUniqueIds(doc);
  const pacer = new Pacer();
  const notes = new RestoreNotes();
  const { meta } = doc;
  const project = await s.projects.create(actor, {
    name: meta.name,
    type: meta.type,
    alert: meta.alert,
    alert_chat: meta.alert_chat || null,
    max_parallel_tasks: meta.max_parallel_tasks,
    demo: false,
  });
  const p = project.id;
  const k: Kinds = {
    keys: new Restored(doc.keys),
    repos: new Restored(doc.repositories),
    invs: new Restored(doc.inventories),
    envs: new Restored(doc.environments),
    views: new Restored(doc.views.map((v) => ({ id: v.id, name: v.title }))),
    tpls: new Restored(doc.templates),
  };

  let emptyKeys = 0;
  // Every secret the backup could not carry, for the answer: the user fills them in before a run.
  const emptySecrets: NonNullable<RestoreResult['emptySecrets']> = [];
  let noneKey: number | null = null;
  for (const key of doc.keys) {
    await pacer.tick();
    const row = await s.keys.createEmpty(actor, p, { name: key.name, type: key.type, login: key.ssh?.login });
    k.keys.set(key.id, row.id);
    if (key.type === 'none') noneKey ??= row.id;
    else {
      emptyKeys += 1;
      emptySecrets.push({ kind: 'key', name: key.name });
    }
  }
  // A repository and an inventory need a key: one that is not restored is replaced by a "none" key.
  const keyOrNone = async (what: string, role: string, backupId: number | null): Promise<number> => {
    const found = backupId === null ? { problem: `no ${role}` } : k.keys.lookup(role, backupId);
    if (!('problem' in found)) return found.id;
    if (noneKey === null) noneKey = (await s.keys.createEmpty(actor, p, { name: ADDED_NONE_KEY, type: 'none' })).id;
    notes.later(what, `${found.problem}; uses the "none" key instead`);
    return noneKey;
  };

  for (const r of doc.repositories) {
    await pacer.tick();
    const what = `Repository "${r.name}"`;
    const sshKeyId = await keyOrNone(what, 'access key', r.ssh_key_id);
    await notes.attempt(what, async () => {
      const input = repositoryInputSchema.parse({
        name: r.name,
        git_url: r.git_url,
        git_branch: r.git_branch,
        ssh_key_id: sshKeyId,
      });
      k.repos.set(r.id, (await s.repositories.create(actor, p, input)).id);
    });
  }
  for (const i of doc.inventories) {
    await pacer.tick();
    const what = `Inventory "${i.name}"`;
    const sshKeyId = await keyOrNone(what, 'user credentials key', i.ssh_key_id);
    const workspace = WORKSPACE_INVENTORY_TYPES.includes(i.type);
    const becomeKeyId = notes.optional(what, 'become key', k.keys, i.become_key_id, (found) =>
      workspace ? `become key "${found.name}" is not for a workspace` : loginKey('become key')(found),
    );
    const repositoryId = notes.optional(what, 'repository', k.repos, i.repository_id);
    await notes.attempt(what, async () => {
      const input = inventoryInputSchema.parse({
        name: i.name,
        type: i.type,
        inventory: i.inventory,
        ssh_key_id: sshKeyId,
        become_key_id: becomeKeyId,
        repository_id: repositoryId,
        git_branch: i.git_branch,
      });
      k.invs.set(i.id, (await s.inventories.create(actor, p, input)).id);
    });
  }
  for (const e of doc.environments) {
    await pacer.tick();
    await notes.attempt(`Variable group "${e.name}"`, async () => {
      const secrets = e.secrets.map((x) => ({ name: x.name, type: x.type, secret: '', operation: 'create' as const }));
      const input = environmentInputSchema.parse({ name: e.name, json: e.json, env: e.env, secrets });
      k.envs.set(e.id, (await s.environments.create(actor, p, input)).id);
      for (const x of e.secrets) emptySecrets.push({ kind: 'secret', group: e.name, name: x.name });
    });
  }
  // A template needs a variable group: one that is not restored is replaced by an empty one.
  let emptyEnv: number | null = null;
  const envOrEmpty = async (what: string, backupId: number): Promise<number> => {
    const found = k.envs.lookup('variable group', backupId);
    if (!('problem' in found)) return found.id;
    if (emptyEnv === null) {
      const input = environmentInputSchema.parse({ name: ADDED_EMPTY_ENV, json: '{}', env: '{}' });
      emptyEnv = (await s.environments.create(actor, p, input)).id;
    }
    notes.later(what, `${found.problem}; uses an empty variable group instead`);
    return emptyEnv;
  };
  for (const v of doc.views) {
    await pacer.tick();
    await notes.attempt(`View "${v.title}"`, async () => {
      const input = viewInputSchema.parse({ title: v.title, position: v.position });
      k.views.set(v.id, (await s.views.create(actor, p, input)).id);
    });
  }
  // Builds before deploys: a deploy names its build template, which must exist by then.
  const ordered = [
    ...doc.templates.filter((t) => t.type !== 'deploy'),
    ...doc.templates.filter((t) => t.type === 'deploy'),
  ];
  for (const t of ordered) {
    await pacer.tick();
    const what = `Template "${t.name}"`;
    const input = await templateInput(t, what, k, notes, envOrEmpty);
    if (!input) continue;
    // An approval policy's named users are kept when they belong to the new project; roles and groups always.
    if (input.approval_policy?.approvers.users.length) {
      const users: number[] = [];
      for (const u of input.approval_policy.approvers.users)
        if ((await s.projects.membership(p, u)).role) users.push(u);
      if (users.length < input.approval_policy.approvers.users.length)
        notes.later(what, 'approvers who are not members of the project left out');
      input.approval_policy = { ...input.approval_policy, approvers: { ...input.approval_policy.approvers, users } };
    }
    await notes.attempt(what, async () => {
      k.tpls.set(t.id, (await s.templates.create(actor, p, templateInputSchema.parse(input))).id);
    });
  }
  // Workspaces attached to their templates again (a drift check schedule names one of them).
  for (const i of doc.inventories) {
    if (i.template_id === null) continue;
    const inv = k.invs.lookup('inventory', i.id);
    const tpl = k.tpls.lookup('template', i.template_id);
    // Either left out is said already (or the reference is listed among the unmapped ones below).
    if ('problem' in inv || 'problem' in tpl) continue;
    await notes.attempt(`Inventory "${i.name}"`, () => s.templates.attachWorkspace(actor, p, tpl.id, inv.id));
  }
  // Before schedules and integrations, which may start a workflow.
  const wfs = await restoreWorkflows(s, actor, p, doc, k, notes, pacer);
  for (const sc of doc.schedules) {
    await pacer.tick();
    const what = `Schedule "${sc.name}"`;
    const target = restoredTarget(what, sc, k.tpls, wfs, notes);
    if (target === null) continue;
    const repositoryId = notes.optional(what, 'repository', k.repos, sc.repository_id);
    await notes.attempt(what, async () => {
      const input = scheduleInputSchema.parse({
        name: sc.name,
        ...target,
        cron_format: sc.cron_format,
        repository_id: repositoryId,
        active: false,
        task_params: sc.task_params && {
          ...sc.task_params,
          inventory_id: sc.task_params.inventory_id
            ? notes.optional(what, 'inventory', k.invs, sc.task_params.inventory_id)
            : undefined,
        },
        type: sc.type,
      });
      await s.schedules.create(actor, p, input);
    });
  }
  for (const ig of doc.integrations) {
    await pacer.tick();
    const what = `Integration "${ig.name}"`;
    const target = restoredTarget(what, ig, k.tpls, wfs, notes);
    if (target === null) continue;
    // Without an authentication method the secret means nothing (the service drops it too).
    const secretId =
      ig.auth_method === 'none' ? null : notes.required(what, 'secret', k.keys, ig.auth_secret_id, loginKey('secret'));
    if (ig.auth_method !== 'none' && secretId === null) continue;
    const integrationId = await notes.attempt(what, async () => {
      const input = integrationInputSchema.parse({
        name: ig.name,
        ...target,
        auth_method: ig.auth_method,
        auth_header: ig.auth_header,
        auth_secret_id: secretId,
        searchable: ig.searchable,
        task_params: ig.task_params,
      });
      return (await s.integrations.create(actor, p, input)).id;
    });
    if (integrationId === undefined) continue;
    for (const m of ig.matchers) {
      await pacer.tick();
      await notes.attempt(`${what}, matcher "${m.name}"`, async () => {
        await s.integrationRules.createMatcher(actor, p, integrationId, matcherInputSchema.parse(m));
      });
    }
    for (const v of ig.extract_values) {
      await pacer.tick();
      await notes.attempt(`${what}, value "${v.name}"`, async () => {
        await s.integrationRules.createValue(actor, p, integrationId, extractValueInputSchema.parse(v));
      });
    }
  }

  await s.events.record({
    projectId: p,
    userId: actor.id,
    objectType: 'project',
    objectId: p,
    description: `Project ${project.name} restored from a backup${emptyKeys ? ` (${emptyKeys} empty keys)` : ''}`,
  });
  return { id: p, projectName: project.name, emptyKeys, emptySecrets, unmapped: notes.lines };
}

/** Names of what a restore adds when a reference it must have names nothing restored. */
const ADDED_NONE_KEY = 'None (added on restore)';
const ADDED_EMPTY_ENV = 'Empty (added on restore)';

/**
 * A template's fields with its references resolved, or null (noted) when it cannot exist without
 * one that names nothing restored: its repository, an Ansible template's inventory, a deploy's
 * build template. A view or another inventory that does not fit is left out; so is a password
 * vault whose key does not fit, with its key. A variable group that is not restored is replaced.
 */
async function templateInput(
  t: BackupTemplate,
  what: string,
  k: Kinds,
  notes: RestoreNotes,
  envOrEmpty: (what: string, backupId: number) => Promise<number>,
): Promise<Omit<BackupTemplate, 'id'> | null> {
  const repositoryId = notes.required(what, 'repository', k.repos, t.repository_id);
  if (repositoryId === null) return null;
  let inventoryId: number | null = null;
  if (t.app === 'ansible') {
    inventoryId = notes.required(what, 'inventory', k.invs, t.inventory_id);
    if (inventoryId === null) return null;
  } else inventoryId = notes.optional(what, 'inventory', k.invs, t.inventory_id);
  let buildTemplateId: number | null = null;
  if (t.type === 'deploy') {
    buildTemplateId = notes.required(what, 'build template', k.tpls, t.build_template_id, ({ name, type }) =>
      type === 'build' ? null : `build template "${name}" is not a build template`,
    );
    if (buildTemplateId === null) return null;
  }
  const viewId = notes.optional(what, 'view', k.views, t.view_id);
  const environmentId = await envOrEmpty(what, t.environment_id);
  const vaults = t.vaults.flatMap((v): BackupTemplate['vaults'] => {
    if (v.type !== 'password') return [{ ...v, vault_key_id: null }];
    const keyId =
      v.vault_key_id === null
        ? 'no vault password key'
        : notes.resolve('vault password key', k.keys, v.vault_key_id, loginKey('vault password key'));
    if (typeof keyId === 'number') return [{ ...v, vault_key_id: keyId }];
    notes.later(what, `${keyId}; vault ${v.name ? `"${v.name}" ` : ''}left out`);
    return [];
  });
  // Lists of groups and inventories (several per template, run-time choices): what is not restored is left out, noted.
  const resolveAll = (kind: 'variable group' | 'inventory', map: Restored, ids: readonly number[]) =>
    ids.flatMap((id) => notes.optional(what, kind, map, id) ?? []);
  const fields = templateFields(
    { ...t, environment_ids: [], inventory_ids: [] },
    {
      key: (id) => id,
      repository: () => repositoryId,
      environment: () => environmentId,
      inventory: () => inventoryId,
      environments: (ids) => resolveAll('variable group', k.envs, ids),
      inventories: (ids) => resolveAll('inventory', k.invs, ids),
      view: () => viewId,
      buildTemplate: () => buildTemplateId,
    },
  );
  // Each list's first is the template's own group / inventory, resolved (or replaced) above.
  const environmentIds = t.environment_ids.length
    ? [environmentId, ...resolveAll('variable group', k.envs, t.environment_ids.slice(1))]
    : [];
  const inventoryIds = t.inventory_ids.length
    ? [...(inventoryId === null ? [] : [inventoryId]), ...resolveAll('inventory', k.invs, t.inventory_ids.slice(1))]
    : [];
  return { ...fields, environment_ids: environmentIds, inventory_ids: inventoryIds, vaults };
}

/** Each kind's backup ids must be unique, or references would be ambiguous. */
function checkUniqueIds(doc: ProjectBackup): void {
  const kinds = {
    keys: doc.keys,
    repositories: doc.repositories,
    inventories: doc.inventories,
    environments: doc.environments,
    views: doc.views,
    templates: doc.templates,
    workflows: doc.workflows,
  };
  for (const [kind, items] of Object.entries(kinds)) {
    const seen = new Set<number>();
    for (const { id } of items) {
      if (seen.has(id))
        throw new ValidationError(`Invalid backup: ${kind} id ${id} is used twice`, {
          code: ErrorCodes.backupInvalid,
          problem: `${kind} id ${id} is used twice`,
        });
      seen.add(id);
    }
  }
}
