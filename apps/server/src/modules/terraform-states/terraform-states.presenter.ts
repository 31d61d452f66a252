import type { TerraformState, TerraformStateVersion } from '@gantry/contracts';
import type { TerraformStateRow } from './terraform-states.repository.js';

export function presentStateVersion(row: Omit<TerraformStateRow, 'state'>): TerraformStateVersion {
  return { id: row.id, task_id: row.task_id, status: row.status, created: row.created };
}

/** `redacted` is the state after `redactState`: the sealed text never leaves unredacted. */
export function presentState(row: TerraformStateRow, redacted: string): TerraformState {
  return { ...presentStateVersion(row), state: redacted };
}
