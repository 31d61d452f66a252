import type { Host, HostsList, HostTaskResult, TaskStatus } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { readsTemplateRepository, type InventoryListing } from '../inventories/inventory-listing.js';
import type { HostResultRow, HostsRepository } from './hosts.repository.js';
import { ListingCache } from './listing-cache.js';
import { parseRecap } from './recap.js';

/** The newest tasks shown per host. */
const LAST_TASKS = 5;
const HIDDEN = '********';
/** Variable names that hold secrets by convention (ansible_password, api_token, ssh_key, ...). */
const SECRET_NAME = /pass(word|wd|phrase)?|secret|token|key|credential|private/i;
/** Values shorter than this are never taken for a secret: they would hide ordinary values. */
const MIN_SECRET = 3;

/** What of an inventory the hosts view lists it by (and reuses a listing while it stays the same). */
type ListedInventory = {
  id: number;
  name: string;
  type: string;
  inventory: string;
  repository_id: number | null;
  git_branch: string | null;
};

export interface HostsServiceDeps {
  repo: HostsRepository;
  inventories: {
    list(projectId: number, query: Record<string, string | undefined>): Promise<ListedInventory[]>;
    /** The templates that use an inventory (in their list or among their run-time choices), by name. */
    refs(projectId: number, id: number): Promise<{ templates: Array<{ id: number; name: string }> }>;
  };
  listing: { list(projectId: number, inventoryId: number, templateId?: number | null): Promise<InventoryListing> };
  clock: Clock;
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
  /** How long an inventory's listing is reused while it is unchanged (tests set 0 to list every time). */
  cacheMs = 60_000;
  private readonly cache: ListingCache<InventoryListing>;

  constructor(private readonly d: HostsServiceDeps) {
    this.cache = new ListingCache(() => d.clock.now());
  }

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
            out.push({ inv, hosts: (await this.listing(projectId, inv)).hosts });
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

  /**
   * One inventory's listing, reused for `cacheMs` while what it reads is unchanged (each listing
   * is a sandboxed process, or a URL fetched). A file of "the template's repository" is read from
   * the repository of the template that ran last among those that use it (by name without a run).
   */
  private async listing(projectId: number, inv: ListedInventory): Promise<InventoryListing> {
    const templateId = readsTemplateRepository(inv) ? await this.templateFor(projectId, inv.id) : null;
    const version = JSON.stringify([inv.type, inv.inventory, inv.repository_id, inv.git_branch, templateId]);
    return this.cache.get(`${projectId}|${inv.id}`, version, this.cacheMs, () =>
      this.d.listing.list(projectId, inv.id, templateId),
    );
  }

  private async templateFor(projectId: number, inventoryId: number): Promise<number | null> {
    const { templates } = await this.d.inventories.refs(projectId, inventoryId);
    if (!templates.length) return null;
    return (
      (await this.d.repo.lastUsedTemplate(
        projectId,
        templates.map((t) => t.id),
      )) ?? templates[0]!.id
    );
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
