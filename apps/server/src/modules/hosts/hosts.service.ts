import type { Host, HostsList, HostTaskResult, TaskStatus } from '@gantry/contracts';
import type { InventoryListing } from '../inventories/inventory-listing.js';
import type { HostResultRow, HostsRepository } from './hosts.repository.js';
import { parseRecap } from './recap.js';

/** The newest tasks shown per host. */
const LAST_TASKS = 5;
const HIDDEN = '********';
/** Variable names that hold secrets by convention (ansible_password, api_token, ssh_key, ...). */
const SECRET_NAME = /pass(word|wd|phrase)?|secret|token|key|credential|private/i;
/** Values shorter than this are never taken for a secret: they would hide ordinary values. */
const MIN_SECRET = 3;

export interface HostsServiceDeps {
  repo: HostsRepository;
  inventories: {
    list(
      projectId: number,
      query: Record<string, string | undefined>,
    ): Promise<Array<{ id: number; name: string; type: string }>>;
  };
  listing: { list(projectId: number, inventoryId: number): Promise<InventoryListing> };
  /** Every secret value of the project (variable groups' secrets, keys' passwords and passphrases). */
  projectSecrets(projectId: number): Promise<string[]>;
}

/** Variables as the hosts view shows them: secret-looking names and values equal to a project secret hidden, at any depth. */
export function hideSecrets(vars: Record<string, unknown>, secrets: ReadonlySet<string>): Record<string, unknown> {
  const walk = (v: unknown, name: string | null): unknown => {
    if (name !== null && SECRET_NAME.test(name)) return HIDDEN;
    if (typeof v === 'string') return secrets.has(v) ? HIDDEN : v;
    if (typeof v === 'number' || typeof v === 'boolean') return secrets.has(String(v)) ? HIDDEN : v;
    if (Array.isArray(v)) return v.map((x) => walk(x, null));
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(vars, null) as Record<string, unknown>;
}

/**
 * The hosts view: every host of the project's Ansible inventories (listed as Ansible reads them)
 * with the last tasks that ran against it, and what happened to each host in an Ansible run
 * (recorded from the run's PLAY RECAP when the task finishes).
 */
export class HostsService {
  constructor(private readonly d: HostsServiceDeps) {}

  /** Records a finished task's PLAY RECAP; never throws (a task's outcome does not depend on it). */
  async recordTask(task: { id: number; project_id: number }): Promise<void> {
    try {
      const hosts = parseRecap(await this.d.repo.logTail(task.id));
      if (hosts.length) await this.d.repo.record(task.id, task.project_id, hosts);
    } catch {
      // Best effort: the task's own result is stored already.
    }
  }

  async list(projectId: number): Promise<HostsList> {
    const inventories = (await this.d.inventories.list(projectId, { app: 'ansible' })).filter((i) =>
      ['static', 'static-yaml', 'file', 'url'].includes(i.type),
    );
    const [listed, secrets] = await Promise.all([
      // One at a time: each is a sandboxed ansible-inventory process on a shared machine.
      (async () => {
        const out: Array<{ inv: (typeof inventories)[number]; hosts?: InventoryListing['hosts']; error?: string }> = [];
        for (const inv of inventories) {
          try {
            out.push({ inv, hosts: (await this.d.listing.list(projectId, inv.id)).hosts });
          } catch (e) {
            out.push({ inv, error: (e as Error).message });
          }
        }
        return out;
      })(),
      this.d.projectSecrets(projectId),
    ]);
    const secretSet = new Set(secrets.filter((s) => s.length >= MIN_SECRET));
    const names = [...new Set(listed.flatMap((l) => l.hosts?.map((h) => h.name) ?? []))];
    const byHost = new Map<string, HostTaskResult[]>();
    for (const r of await this.d.repo.results(projectId, names)) {
      const list = byHost.get(r.host) ?? [];
      if (list.length < LAST_TASKS) list.push(present(r));
      byHost.set(r.host, list);
    }
    const hosts: Host[] = listed.flatMap(({ inv, hosts: hs }) =>
      (hs ?? []).map((h) => ({
        name: h.name,
        groups: h.groups,
        inventory_id: inv.id,
        inventory_name: inv.name,
        vars: hideSecrets(h.vars, secretSet),
        last_tasks: byHost.get(h.name) ?? [],
      })),
    );
    const errors = listed.flatMap(({ inv, error }) =>
      error === undefined ? [] : [{ inventory_id: inv.id, inventory_name: inv.name, error }],
    );
    return { hosts, errors };
  }
}

function present(r: HostResultRow): HostTaskResult {
  return {
    task_id: r.task_id,
    template_id: r.template_id,
    template_name: r.template_name ?? '',
    status: r.status as TaskStatus,
    created: r.created,
    ok: r.ok,
    changed: r.changed,
    unreachable: r.unreachable,
    failed: r.failed,
    skipped: r.skipped,
    rescued: r.rescued,
    ignored: r.ignored,
  };
}
