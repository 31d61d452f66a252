import type { Repository } from '@gantry/contracts';
import type { RepositoryRow } from './repositories.repository.js';

export function presentRepository(row: RepositoryRow): Repository {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    git_url: row.git_url,
    git_branch: row.git_branch,
    ssh_key_id: row.ssh_key_id,
  };
}
