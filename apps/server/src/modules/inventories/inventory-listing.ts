import { ErrorCodes, WORKSPACE_INVENTORY_TYPES, type InventoryType } from '@gantry/contracts';
import type { KeySecret, RepoWithKey } from '../../engine/ports.js';
import { ValidationError } from '../../platform/errors.js';
import type { LocalPathCheck } from '../../platform/local-paths.js';
import type { InventoryRow } from './inventories.repository.js';
import { readUrlInventory } from './url-inventory.js';

/** One host of a listed inventory: its groups (direct and inherited, never `all`) and variables. */
export interface InventoryHost {
  name: string;
  groups: string[];
  vars: Record<string, unknown>;
}

export interface InventoryListing {
  hosts: InventoryHost[];
  groups: string[];
}

/** What the engine's lister is given (engine/inventory-list.ts, wired in wiring/inventory.ts). */
export interface InventoryListRequest {
  projectId: number;
  type: string;
  inventory: string;
  repository: RepoWithKey | null;
  branch: string | null;
}

export interface InventoryListingDeps {
  inventories: {
    get(projectId: number, id: number): Promise<InventoryRow>;
    recordRead(projectId: number, id: number, error: string | null): Promise<void>;
  };
  repositories: {
    get(projectId: number, id: number): Promise<{ git_url: string; git_branch: string; ssh_key_id: number | null }>;
  };
  /** A template whose repository a file of "the template's repository" is read from. */
  templates: { get(projectId: number, id: number): Promise<{ repository_id: number; git_branch: string | null }> };
  keys: { secretOf(projectId: number, id: number): Promise<KeySecret | null> };
  localPaths: LocalPathCheck;
  /** Runs `ansible-inventory --list` in the sandbox (the engine's InventoryLister). */
  lister: { list(req: InventoryListRequest): Promise<InventoryListing> };
  /** GANTRY_FETCH_ALLOWED_HOSTS, for URL inventories. */
  allowedHosts: readonly string[];
}

/**
 * Whether an inventory is a file of its template's own repository (Semaphore's usual file
 * inventory: a relative path and no repository of its own): a run reads it from the template's
 * checkout, so a listing needs a template to read it from.
 */
export function readsTemplateRepository(inv: Pick<InventoryRow, 'type' | 'inventory' | 'repository_id'>): boolean {
  return inv.type === 'file' && !inv.inventory.startsWith('/') && !inv.repository_id;
}

/** The inventory types whose hosts can be listed (Ansible's); workspaces have none. */
export function isListable(type: string): boolean {
  return !WORKSPACE_INVENTORY_TYPES.includes(type as InventoryType);
}

/**
 * The hosts and groups of one inventory of a project, as Ansible reads it: static texts, a
 * repository file at its branch (a file of "the template's repository": in a given template's), a
 * URL's text. Used by the hosts view and by parameter options (`inventory_hosts`,
 * `inventory_groups`). A `file` or `url` read records its outcome on the row.
 * Fails with an Error whose message says why (a 400 for an inventory that has no hosts to list).
 */
export class InventoryListingService {
  constructor(private readonly d: InventoryListingDeps) {}

  /**
   * `templateId`: the template whose repository (at its branch, as its runs read it) a file of
   * "the template's repository" is read from; other inventories ignore it.
   */
  async list(projectId: number, inventoryId: number, templateId?: number | null): Promise<InventoryListing> {
    const inv = await this.d.inventories.get(projectId, inventoryId);
    if (!isListable(inv.type))
      throw new ValidationError('A workspace inventory has no hosts to list', {
        code: ErrorCodes.inventoryNotListable,
        field: 'inventory_id',
      });
    // Without a template there is no repository to list such a file from: said, but not recorded
    // as a failed read (its runs read it).
    if (readsTemplateRepository(inv) && !templateId)
      throw new Error("The inventory is a file of its template's repository, and no template uses it");
    const records = inv.type === 'file' || inv.type === 'url';
    try {
      const listed = await this.d.lister.list(await this.request(projectId, inv, templateId ?? null));
      if (records) await this.d.inventories.recordRead(projectId, inv.id, null);
      return listed;
    } catch (e) {
      if (records) await this.d.inventories.recordRead(projectId, inv.id, (e as Error).message);
      throw e;
    }
  }

  private async request(
    projectId: number,
    inv: InventoryRow,
    templateId: number | null,
  ): Promise<InventoryListRequest> {
    const base = { projectId, type: inv.type, inventory: inv.inventory, repository: null, branch: null };
    if (inv.type === 'url') return { ...base, inventory: await readUrlInventory(inv.inventory, this.d.allowedHosts) };
    if (inv.type !== 'file') return base;
    const problem = this.d.localPaths.inventoryProblem(inv.inventory);
    if (problem) throw new Error(problem);
    if (inv.inventory.startsWith('/')) return base;
    const template = templateId ? await this.d.templates.get(projectId, templateId) : null;
    const repositoryId = inv.repository_id || template?.repository_id;
    if (!repositoryId) throw new Error('The inventory names a file but no repository to read it from');
    const repo = await this.d.repositories.get(projectId, repositoryId);
    const repoProblem = this.d.localPaths.repositoryProblem(repo.git_url);
    if (repoProblem) throw new Error(repoProblem);
    const key = repo.ssh_key_id ? await this.d.keys.secretOf(projectId, repo.ssh_key_id) : null;
    // As a run reads it (engine/run-inventories.ts): a file of the template's repository without a
    // branch of its own is in the template's checkout, at the template's branch.
    const own = template !== null && repositoryId === template.repository_id;
    return {
      ...base,
      repository: { row: { git_url: repo.git_url, git_branch: repo.git_branch }, key },
      branch: inv.git_branch || (own ? template.git_branch : null) || repo.git_branch || null,
    };
  }
}
