import type { Approval, ApprovalStatus, WorkflowApprovers } from '@gantry/contracts';
import type { ApprovalRow, VoteRow } from './approvals.repository.js';

/** An approval row as the API answers it, with its votes and whether the caller may vote now. */
export function presentApproval(
  row: ApprovalRow,
  approvers: WorkflowApprovers,
  votes: VoteRow[],
  canDecide: boolean,
): Approval {
  return {
    id: row.id,
    project_id: row.project_id,
    status: row.status as ApprovalStatus,
    workflow_run_id: row.workflow_run_id,
    workflow_id: row.workflow_id,
    node_id: row.node_id,
    task_id: row.task_id,
    template_id: row.template_id,
    title: row.title,
    requester_id: row.requester_id,
    approvers,
    required_approvals: row.required_approvals,
    allow_self_approval: row.allow_self_approval === 1,
    deadline: row.deadline,
    on_timeout: row.on_timeout === 'approve' ? 'approve' : 'reject',
    can_decide: canDecide,
    votes: votes.map((v) => ({
      user_id: v.user_id,
      // A deleted user's vote stays, under their former id.
      username: v.username ?? `#${v.user_id}`,
      decision: v.decision === 'approve' ? 'approve' : 'reject',
      comment: v.comment,
      created: v.created,
    })),
    created: row.created,
    decided: row.decided,
    decided_by: row.decided_by,
  };
}
