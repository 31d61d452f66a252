import type { Runner } from '@gantry/contracts';
import type { RunnerRow } from './runners.repository.js';

/** The API shape of a runner: the token hash and public key stay on the server. */
export function presentRunner(row: RunnerRow): Runner {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    tag: row.tag,
    webhook: row.webhook,
    max_parallel_tasks: row.max_parallel_tasks,
    active: row.active === 1,
    touched: row.touched,
    cleaning_requested: row.cleaning_requested === 1,
    created: row.created,
  };
}
