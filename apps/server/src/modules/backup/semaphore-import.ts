import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  INVENTORY_TYPES,
  KEY_TYPES,
  envNameProblem,
  isValidBranch,
  type ProjectBackupInput,
} from '@gantry/contracts';
import { SEMAPHORE_UNSUPPORTED_SECTIONS, type SemaphoreBackup } from './semaphore-format.js';
import { integrationFrom, Names, templateFrom, withoutBadNames, type Doc } from './semaphore-import-parts.js';

type SemTemplate = SemaphoreBackup['templates'][number];

/** A Gantry backup document made from a Semaphore one, and what could not be carried over. */
export interface SemaphoreImport {
  backup: ProjectBackupInput;
  unmapped: string[];
}

/**
 * Converts Semaphore's backup (names as references) into Gantry's (backup ids as references),
 * so that the one restore path, with its checks and its transaction, does the writing. A
 * reference that names nothing in the backup, or a value that Gantry's rules for variable,
 * survey and branch names refuse, is left out and reported; an object that cannot exist
 * without it (a template without its repository) is left out as a whole and reported.
 */
export function fromSemaphore(src: SemaphoreBackup): SemaphoreImport {
  const notes: string[] = [];
  const note = (what: string, message: string) => notes.push(`${what}: ${message}`);
  const doc: Doc = {
    keys: [],
    repositories: [],
    inventories: [],
    environments: [],
    views: [],
    templates: [],
    schedules: [],
    integrations: [],
    // Semaphore's format has no workflows.
    workflows: [],
  };

  const keys = new Names('Key', notes);
  const keyTypes = new Map<number, string>();
  for (const k of src.keys) {
    if (!(KEY_TYPES as readonly string[]).includes(k.type)) {
      note(`Key "${k.name}"`, `type "${k.type}" is not supported; left out`);
      continue;
    }
    const id = keys.add(k.name);
    keyTypes.set(id, k.type);
    doc.keys.push({ id, name: k.name, type: k.type as (typeof KEY_TYPES)[number] });
  }
  // Gantry requires a key on repositories and inventories; Semaphore files may name none.
  let noneKeyId: number | null = [...keyTypes].find(([, type]) => type === 'none')?.[0] ?? null;
  const noneKey = (what: string, message: string): number => {
    if (noneKeyId === null) {
      noneKeyId = keys.add('None (added on restore)');
      doc.keys.push({ id: noneKeyId, name: 'None (added on restore)', type: 'none' });
    }
    note(what, `${message}; uses the "none" key instead`);
    return noneKeyId;
  };
  const keyRef = (what: string, field: string, name: string | null): number | null => {
    const id = keys.find(name);
    if (name !== null && id === null) note(what, `${field} "${name}" is not in the backup's keys; left out`);
    return id;
  };

  const repos = new Names('Repository', notes);
  for (const r of src.repositories) {
    const what = `Repository "${r.name}"`;
    const local = r.git_url.startsWith('/');
    if (!local && r.git_branch && !isValidBranch(r.git_branch)) {
      note(what, `branch "${r.git_branch}" is not a valid branch name; left out`);
      continue;
    }
    const ssh = keys.find(r.ssh_key);
    doc.repositories.push({
      id: repos.add(r.name),
      name: r.name,
      git_url: r.git_url,
      git_branch: r.git_branch,
      ssh_key_id: ssh ?? noneKey(what, r.ssh_key ? `key "${r.ssh_key}" is not in the backup` : 'no access key'),
    });
  }

  const invs = new Names('Inventory', notes);
  for (const i of src.inventories) {
    const what = `Inventory "${i.name}"`;
    if (!(INVENTORY_TYPES as readonly string[]).includes(i.type)) {
      note(what, `type "${i.type}" is not supported; left out`);
      continue;
    }
    let repositoryId: number | null = null;
    if (i.repository !== null) {
      repositoryId = repos.find(i.repository);
      if (repositoryId === null) note(what, `repository "${i.repository}" is not in the backup; left out`);
    } else if (i.repository_id) {
      note(
        what,
        "names its repository by the source server's id, which cannot be mapped; uses the template's repository",
      );
    }
    const ssh = keys.find(i.ssh_key);
    doc.inventories.push({
      id: invs.add(i.name),
      name: i.name,
      type: i.type as (typeof INVENTORY_TYPES)[number],
      inventory: i.inventory,
      ssh_key_id: ssh ?? noneKey(what, i.ssh_key ? `key "${i.ssh_key}" is not in the backup` : 'no user credentials'),
      become_key_id: keyRef(what, 'become key', i.become_key),
      repository_id: repositoryId,
      git_branch: i.git_branch || null,
    });
  }

  const envs = new Names('Variable group', notes);
  for (const e of src.environments) {
    const what = `Variable group "${e.name}"`;
    const secrets = e.secrets.flatMap((s) => {
      const type = s.type === 'env' ? 'env' : 'var';
      const problem = type === 'env' ? envNameProblem(s.name, 'group') : null;
      if (problem) note(what, `secret left out: ${problem}`);
      return problem ? [] : [{ name: s.name, type: type as 'env' | 'var' }];
    });
    doc.environments.push({
      id: envs.add(e.name),
      name: e.name,
      json: e.json ?? '{}',
      env: withoutBadNames(
        e.env ?? '{}',
        (n) => envNameProblem(n, 'group'),
        (m) => note(what, m),
      ),
      secrets,
    });
  }
  let emptyEnvId: number | null = null;
  const emptyEnv = (what: string, message: string): number => {
    if (emptyEnvId === null) {
      emptyEnvId = envs.add('Empty (added on restore)');
      doc.environments.push({ id: emptyEnvId, name: 'Empty (added on restore)', json: '{}', env: '{}', secrets: [] });
    }
    note(what, `${message}; uses an empty variable group instead`);
    return emptyEnvId;
  };

  const views = new Names('View', notes);
  for (const v of src.views) {
    const title = v.title ?? v.name ?? '';
    doc.views.push({ id: views.add(title), title, position: v.position ?? 0 });
  }

  const tpls = new Names('Template', notes);
  const tplIds = src.templates.map((t) => tpls.add(t.name));
  const kept = new Set<number>();
  const pending: Array<{ t: SemTemplate; id: number; out: Doc['templates'][number] }> = [];
  src.templates.forEach((t, n) => {
    const out = templateFrom(t, tplIds[n]!, { keys, repos, invs, envs, views, keyRef, emptyEnv, note });
    if (out) pending.push({ t, id: tplIds[n]!, out });
  });
  for (const p of pending) if (p.t.type !== 'deploy') kept.add(p.id);
  for (const p of pending) {
    const what = `Template "${p.t.name}"`;
    if (p.t.type === 'deploy') {
      const build = tpls.find(p.t.build_template);
      if (build === null || !kept.has(build)) {
        note(what, `build template "${p.t.build_template ?? ''}" is not restored; left out`);
        continue;
      }
      p.out.build_template_id = build;
      kept.add(p.id);
    }
    doc.templates.push(p.out);
  }
  const template = (what: string, name: string): number | null => {
    const id = tpls.find(name);
    if (id !== null && kept.has(id)) return id;
    note(what, `template "${name}" is not restored; left out`);
    return null;
  };

  for (const s of src.schedules) {
    const what = `Schedule "${s.name}"`;
    if (s.type) {
      note(what, `type "${s.type}" is not supported (Gantry's schedules are cron only); left out`);
      continue;
    }
    const templateId = template(what, s.template);
    if (templateId === null) continue;
    // Its answers to the template's parameters are kept; its other run options are not Gantry's.
    const { environment, ...otherParams } = s.task_params as Record<string, unknown>;
    const answers = typeof environment === 'string' && environment.trim() ? environment : null;
    if (environment !== undefined && environment !== null && environment !== '' && answers === null)
      note(what, 'parameter answers are not JSON object text; ignored');
    if (Object.values(otherParams).some(meaningful)) note(what, 'task parameters other than its parameter answers are not supported; ignored');
    let repositoryId: number | null = null;
    if (s.checkable_repository !== null) {
      repositoryId = repos.find(s.checkable_repository);
      if (repositoryId === null) note(what, `repository "${s.checkable_repository}" is not in the backup; left out`);
    } else if (s.repository_id) {
      note(what, "names its repository by the source server's id, which cannot be mapped; runs on time only");
    }
    doc.schedules.push({
      name: s.name,
      template_id: templateId,
      cron_format: s.cron_format,
      repository_id: repositoryId,
      active: s.active,
      task_params: answers === null ? null : { environment: answers },
    });
  }
  // Older Semaphore versions keep one schedule per template as the template's `cron`.
  const scheduled = new Set(doc.schedules.map((s) => `${s.template_id} ${s.cron_format}`));
  src.templates.forEach((t, n) => {
    const id = tplIds[n]!;
    if (!t.cron || !kept.has(id)) return;
    if (scheduled.has(`${id} ${t.cron}`)) return;
    doc.schedules.push({ name: t.name, template_id: id, cron_format: t.cron, repository_id: null, active: true, task_params: null });
  });

  for (const ig of src.integrations) {
    const out = integrationFrom(ig, { keys, template, note });
    if (out) doc.integrations.push(out);
  }
  if (src.integration_aliases.length) {
    notes.push(
      `${src.integration_aliases.length} project alias URL(s) not restored: add new ones to the restored project`,
    );
  }
  for (const section of SEMAPHORE_UNSUPPORTED_SECTIONS) {
    const n = src[section].length;
    if (n) notes.push(`${n} ${section.replace('_', ' ')} not restored: Gantry has no counterpart`);
  }

  const m = src.meta;
  return {
    backup: {
      meta: {
        format: BACKUP_FORMAT,
        version: BACKUP_VERSION,
        name: m.name,
        type: m.type ?? '',
        alert: m.alert,
        alert_chat: m.alert_chat,
        max_parallel_tasks: m.max_parallel_tasks,
      },
      ...doc,
    },
    unmapped: notes,
  };
}

/** Whether a value says something: not null, false, 0, "" or an empty list or object. */
function meaningful(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(meaningful);
  if (v && typeof v === 'object') return Object.values(v).some(meaningful);
  return v !== null && v !== undefined && v !== false && v !== 0 && v !== '';
}
