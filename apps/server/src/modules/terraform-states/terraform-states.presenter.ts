import {
  planSummarySchema,
  type PlanSummary,
  type TerraformState,
  type TerraformStateVersion,
} from '@gantry/contracts';
import type { StatePlanRow, TerraformStateListRow, TerraformStateRow } from './terraform-states.repository.js';

/** Enough of an alias to tell writers apart, not enough to use it as an address. */
const ALIAS_HINT = 6;

/** A listed version (with its task's status) or a stored one. */
export function presentStateVersion(row: TerraformStateListRow | TerraformStateRow): TerraformStateVersion {
  const taskStatus = 'task_status' in row ? row.task_status : null;
  return {
    id: row.id,
    task_id: row.task_id,
    // A task writing through the backend stores its version before it ends: its status is the task's.
    status: row.status || (row.task_id !== null ? (taskStatus ?? '') : ''),
    created: row.created,
    serial: row.serial,
    lineage: row.lineage,
    resource_count: row.resource_count,
    alias_hint: row.writer_alias ? `${row.writer_alias.slice(0, ALIAS_HINT)}…` : null,
  };
}

/** A stored plan summary, or null when it cannot be read (stored by an older or broken writer). */
function planSummaryOf(text: string): PlanSummary | null {
  try {
    const parsed = planSummarySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** A listed version with the plan of the task that wrote it and who confirmed that plan (null: none). */
export function presentListedVersion(
  row: TerraformStateListRow,
  plan: StatePlanRow | undefined,
): TerraformStateVersion {
  return {
    ...presentStateVersion(row),
    plan_summary: plan ? planSummaryOf(plan.summary) : null,
    confirmed_by:
      plan?.confirmed_at != null
        ? { user_id: plan.confirmed_by, user_name: plan.user_name, at: plan.confirmed_at }
        : null,
  };
}

/** `redacted` is the state after `redactState`: the sealed text never leaves unredacted. */
export function presentState(row: TerraformStateRow, redacted: string): TerraformState {
  return { ...presentStateVersion(row), state: redacted };
}
