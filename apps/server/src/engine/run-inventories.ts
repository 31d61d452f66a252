import type { InventorySource, KeySecret, RepoWithKey, RepositorySource, RunSources } from './ports.js';

/**
 * One inventory of a run, in `-i` order. `static`/`static-yaml`: the text; `url`: the text the
 * server fetched; `file`: a path in `repository` at `branch` (null repository: the template's own
 * checkout), or an absolute path on the machine. Workspace inventories are not listed.
 */
export interface RunInventory {
  id: number;
  type: string;
  inventory: string;
  repository: RepoWithKey | null;
  branch: string | null;
}

/**
 * Resolves what each inventory is read from: a URL's text is fetched here, on the server (a
 * remote runner gets the text, never fetches), and each read's outcome is recorded on the row;
 * a failed fetch fails the run with the reason.
 */
export async function loadRunInventories(
  d: Pick<RunSources, 'repositories' | 'localPaths' | 'inventoryReads'>,
  projectId: number,
  rows: Array<InventorySource & { git_branch?: string | null }>,
  templateRepo: RepositorySource,
  readKey: (id: number | null) => Promise<KeySecret | null>,
): Promise<RunInventory[]> {
  const out: RunInventory[] = [];
  for (const inv of rows) {
    const base = { id: inv.id, type: inv.type, inventory: inv.inventory, repository: null, branch: null };
    if (inv.type === 'url') {
      if (!d.inventoryReads) throw new Error('URL inventories cannot be read here');
      try {
        out.push({ ...base, inventory: await d.inventoryReads.fetchUrl(inv.inventory) });
        await d.inventoryReads.record(projectId, inv.id, null);
      } catch (e) {
        await d.inventoryReads.record(projectId, inv.id, (e as Error).message);
        throw e;
      }
    } else if (inv.type === 'file' && !inv.inventory.startsWith('/')) {
      const own = !inv.repository_id || inv.repository_id === templateRepo.id;
      if (own && !inv.git_branch) {
        out.push(base);
        continue;
      }
      const row = own ? templateRepo : await d.repositories.get(projectId, inv.repository_id!);
      const problem = d.localPaths.repositoryProblem(row.git_url);
      if (problem) throw new Error(problem);
      out.push({
        ...base,
        repository: { row: { git_url: row.git_url, git_branch: row.git_branch }, key: await readKey(row.ssh_key_id) },
        branch: inv.git_branch || row.git_branch || null,
      });
    } else if (inv.type === 'static' || inv.type === 'static-yaml' || inv.type === 'file') {
      out.push(base);
    }
  }
  return out;
}
