import type { WorkflowApprovers } from '@gantry/contracts';

/** What an approval node asks for: who approves, how many, and what its timeout means. */
export interface NodeApprovalSpec {
  approvers: WorkflowApprovers;
  required_approvals: number;
  allow_self_approval: boolean;
  timeout_seconds: number | null;
  on_timeout: 'reject' | 'approve';
}

export interface NodeApprovalRequest {
  projectId: number;
  runId: number;
  workflowId: number;
  nodeId: string;
  attempt: number;
  requesterId: number | null;
  title: string;
  spec: NodeApprovalSpec;
}

/**
 * What the run driver asks of approvals (the approvals module implements it; the composition
 * root wires it). Opening is idempotent per (run, node, attempt): two server nodes advancing the
 * same run open one approval.
 */
export interface ApprovalsPort {
  openForNode(request: NodeApprovalRequest): Promise<number>;
  /**
   * A passed deadline is reported as its on_timeout result, except that a timeout meaning reject
   * is `timed_out`, so the run's node can say nobody answered rather than that someone refused.
   */
  state(approvalId: number): Promise<'pending' | 'approved' | 'rejected' | 'timed_out'>;
  cancel(approvalId: number): Promise<void>;
}
