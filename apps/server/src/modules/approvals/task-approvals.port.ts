import type { ApprovalPolicy } from '@gantry/contracts';

/** What a task of a template with an approval policy needs of approvals (the tasks module calls it). */
export interface TaskApprovals {
  /** Opens the approval the task waits for in `waiting_approval`; answers its id. */
  openForTask(
    task: { id: number; project_id: number; user_id: number | null },
    template: { id: number; name: string; approval_policy?: ApprovalPolicy | null },
  ): Promise<number>;
  /** The task was stopped while waiting: its pending approval ends (rejected, decided by `canceled`). */
  cancelForTask(taskId: number): Promise<void>;
}

/** Until the composition root wires approvals in: a policy cannot be honoured, so a task refuses to wait. */
export const noTaskApprovals: TaskApprovals = {
  openForTask: async () => {
    throw new Error('approvals are not wired in');
  },
  cancelForTask: async () => undefined,
};

/** What approvals do to the task they hold (the tasks module implements it). */
export interface ApprovalTaskGate {
  /** Approved: `waiting_approval` → `waiting`, and the queue is woken. */
  approvalGranted(taskId: number): Promise<void>;
  /** Rejected or timed out to reject: `waiting_approval` → `rejected` with its end time. */
  approvalRefused(taskId: number, by: string): Promise<void>;
}
