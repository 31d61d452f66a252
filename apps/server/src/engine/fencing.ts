import { isFinished } from '@gantry/contracts';
import type { LocalRuns } from './local-runs.js';
import type { LogLine, TaskRecord, TaskStore } from './ports.js';

/** The log table's conditional append (task-output.repository.ts fits it by shape). */
export interface OwnedLogStore {
  /**
   * Stores `lines` only while each of their tasks is live (active, or rejected and not yet ended
   * by its run) and `owner`'s; answers false, storing none of them, when one is not. Atomic with
   * the status writes of other nodes: a node failing this task waits for an append in flight,
   * and one that comes after it is refused.
   */
  appendOwned(lines: LogLine[], owner: string): Promise<boolean>;
}

/**
 * Why a run's final status write did not move the task, as `finalWriteOutcome` tells it:
 * - `written`: this run's write is stored (also when an earlier try landed unseen);
 * - `ended-by-request`: rejected by a user while the run waited; the run still ends it (notifies);
 * - `not-owned`: the task was ended by someone else (failed when this node was declared dead, or
 *   by a sweep) and told about by them: done, never retried, never notified again.
 */
export type FinalWriteOutcome = 'written' | 'ended-by-request' | 'not-owned';

/**
 * Reads what a final write that did not move the task met. `end` is the end time the run wrote:
 * a row holding exactly it was this run's own write, landed on an earlier try that seemed to fail.
 */
export function finalWriteOutcome(row: Pick<TaskRecord, 'node_id' | 'status' | 'end'> | undefined, nodeId: string, status: string, end: string | null | undefined): FinalWriteOutcome {
  if (!row || row.node_id !== nodeId) return 'not-owned';
  if (row.status === 'rejected') return 'ended-by-request';
  if (row.status === status && end !== undefined && row.end === end) return 'written';
  return 'not-owned';
}

/**
 * The task store a local run writes through: the same store, except that its log lines are
 * stored only while the task is still live and this node's (a node the others declared dead
 * stops adding to what they failed), and a final status write that finds the task ended by
 * someone else marks the run lost, so its notifications are skipped. A refused batch is dropped
 * and the run is killed at once; the sink sees it as stored (there is nothing to retry).
 * Lines the run adds after its own final status (a note about the write) are stored as they are.
 */
export function fencedRunStore<T extends TaskStore>(store: T, log: OwnedLogStore, nodeId: string, runs: LocalRuns): T {
  // Every other method (B's additions to the port included) is the store's own, through the prototype.
  const fenced = Object.create(store) as T;
  fenced.appendOutput = async (lines) => {
    const taskId = lines[0]?.task_id;
    if (taskId === undefined) return;
    if (runs.isFinalized(taskId)) return store.appendOutput(lines);
    if (!(await log.appendOwned(lines, nodeId))) runs.lose(taskId);
  };
  fenced.transition = async (id, from, to, patch = {}, ownerNode) => {
    const moved = await store.transition(id, from, to, patch, ownerNode);
    if (ownerNode === undefined || !isFinished(to)) return moved;
    if (moved) {
      runs.markFinalized(id);
      return true;
    }
    const outcome = finalWriteOutcome(await store.findById(id), nodeId, to, patch.end);
    if (outcome === 'not-owned') runs.lose(id);
    else runs.markFinalized(id);
    return moved;
  };
  return fenced;
}
