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
  type ProjectBackup,
  type RestoreResult,
} from '@gantry/contracts';
import { ZodError } from 'zod';
import { AppError, ValidationError } from '../../platform/errors.js';
import type { Actor } from '../../platform/resource-routes.js';
import { Pacer } from './backup.limits.js';
import { templateFields } from './backup.template-fields.js';
import type { RestoreServices } from './backup.transaction.js';

type BackupTemplate = ProjectBackup['templates'][number];

/** Backup ids of one kind mapped to the ids of the rows just created. */
class IdMap {
  private readonly ids = new Map<number, number>();
  constructor(private readonly kind: string) {}

  set(backupId: number, id: number): void {
    this.ids.set(backupId, id);
  }

  /** The new id; a reference to something the backup does not hold is the backup's fault (400). */
  get(backupId: number): number {
    const id = this.ids.get(backupId);
    if (id === undefined) throw new ValidationError(`refers to ${this.kind} #${backupId}, which is not in the backup`);
    return id;
  }

  opt(backupId: number | null): number | null {
    return backupId === null ? null : this.get(backupId);
  }
}

/**
 * Recreates a backup as a new project owned by `actor`, through the services' own create
 * methods (so every check the API makes applies). Keys come back without material. Restored
 * schedules start inactive: with empty keys they could only fail, and a copy of a project must
 * not start running the original's jobs on its own. Runs inside the caller's transaction, letting
 * the event loop run every few objects (on SQLite each write holds it; see RESTORE_YIELD_EVERY).
 */
export async function restoreProject(s: RestoreServices, actor: Actor, doc: ProjectBackup): Promise<RestoreResult> {
  checkUniqueIds(doc);
  const pacer = new Pacer();
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
  const keys = new IdMap('key');
  const repos = new IdMap('repository');
  const invs = new IdMap('inventory');
  const envs = new IdMap('variable group');
  const views = new IdMap('view');
  const tpls = new IdMap('template');

  for (const k of doc.keys) {
    await pacer.tick();
    keys.set(k.id, (await s.keys.createEmpty(actor, p, { name: k.name, type: k.type })).id);
  }
  for (const r of doc.repositories) {
    await pacer.tick();
    await about(`Repository "${r.name}"`, async () => {
      const input = repositoryInputSchema.parse({
        name: r.name,
        git_url: r.git_url,
        git_branch: r.git_branch,
        ssh_key_id: keys.get(r.ssh_key_id),
      });
      repos.set(r.id, (await s.repositories.create(actor, p, input)).id);
    });
  }
  for (const i of doc.inventories) {
    await pacer.tick();
    await about(`Inventory "${i.name}"`, async () => {
      const input = inventoryInputSchema.parse({
        name: i.name,
        type: i.type,
        inventory: i.inventory,
        ssh_key_id: keys.opt(i.ssh_key_id),
        become_key_id: keys.opt(i.become_key_id),
        repository_id: repos.opt(i.repository_id),
      });
      invs.set(i.id, (await s.inventories.create(actor, p, input)).id);
    });
  }
  for (const e of doc.environments) {
    await pacer.tick();
    await about(`Variable group "${e.name}"`, async () => {
      const secrets = e.secrets.map((x) => ({ name: x.name, type: x.type, secret: '', operation: 'create' as const }));
      const input = environmentInputSchema.parse({ name: e.name, json: e.json, env: e.env, secrets });
      envs.set(e.id, (await s.environments.create(actor, p, input)).id);
    });
  }
  for (const v of doc.views) {
    await pacer.tick();
    await about(`View "${v.title}"`, async () => {
      views.set(
        v.id,
        (await s.views.create(actor, p, viewInputSchema.parse({ title: v.title, position: v.position }))).id,
      );
    });
  }
  // Builds before deploys: a deploy names its build template, which must exist by then.
  const ordered = [
    ...doc.templates.filter((t) => t.type !== 'deploy'),
    ...doc.templates.filter((t) => t.type === 'deploy'),
  ];
  for (const t of ordered) {
    await pacer.tick();
    await about(`Template "${t.name}"`, async () => {
      tpls.set(
        t.id,
        (await s.templates.create(actor, p, templateInput(t, { keys, repos, invs, envs, views, tpls }))).id,
      );
    });
  }
  for (const sc of doc.schedules) {
    await pacer.tick();
    await about(`Schedule "${sc.name}"`, async () => {
      const input = scheduleInputSchema.parse({
        name: sc.name,
        template_id: tpls.get(sc.template_id),
        cron_format: sc.cron_format,
        repository_id: repos.opt(sc.repository_id),
        active: false,
      });
      await s.schedules.create(actor, p, input);
    });
  }
  for (const ig of doc.integrations) {
    await pacer.tick();
    await about(`Integration "${ig.name}"`, async () => {
      const input = integrationInputSchema.parse({
        name: ig.name,
        template_id: tpls.get(ig.template_id),
        auth_method: ig.auth_method,
        auth_header: ig.auth_header,
        auth_secret_id: keys.opt(ig.auth_secret_id),
        searchable: ig.searchable,
        task_params: ig.task_params,
      });
      const created = await s.integrations.create(actor, p, input);
      for (const m of ig.matchers) {
        await pacer.tick();
        await s.integrationRules.createMatcher(actor, p, created.id, matcherInputSchema.parse(m));
      }
      for (const v of ig.extract_values) {
        await pacer.tick();
        await s.integrationRules.createValue(actor, p, created.id, extractValueInputSchema.parse(v));
      }
    });
  }

  const emptyKeys = doc.keys.filter((k) => k.type !== 'none').length;
  await s.events.record({
    projectId: p,
    userId: actor.id,
    objectType: 'project',
    objectId: p,
    description: `Project ${project.name} restored from a backup${emptyKeys ? ` (${emptyKeys} empty keys)` : ''}`,
  });
  return { id: p, projectName: project.name, emptyKeys };
}

function templateInput(
  t: BackupTemplate,
  m: { keys: IdMap; repos: IdMap; invs: IdMap; envs: IdMap; views: IdMap; tpls: IdMap },
) {
  return templateInputSchema.parse(
    templateFields(t, {
      key: (id) => m.keys.opt(id),
      repository: (id) => m.repos.get(id),
      environment: (id) => m.envs.get(id),
      inventory: (id) => m.invs.opt(id),
      view: (id) => m.views.opt(id),
      // Only a deploy refers to a build template; elsewhere a stale reference is dropped.
      buildTemplate: (id) => (t.type === 'deploy' ? m.tpls.opt(id) : null),
    }),
  );
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
  };
  for (const [kind, items] of Object.entries(kinds)) {
    const seen = new Set<number>();
    for (const { id } of items) {
      if (seen.has(id)) throw new ValidationError(`Invalid backup: ${kind} id ${id} is used twice`);
      seen.add(id);
    }
  }
}

/** Names the object a failure is about: "Template "Deploy": Inventory is required". */
async function about(what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof ZodError) throw new ValidationError(`${what}: ${err.issues[0]?.message ?? 'invalid'}`);
    if (err instanceof ValidationError) throw new ValidationError(`${what}: ${err.message}`);
    if (err instanceof AppError && err.statusCode === 404) throw new ValidationError(`${what}: ${err.message}`);
    throw err;
  }
}
