import type { Generated } from 'kysely';

/** An approval of a workflow run's node or of a task held by its template's policy (migration 030). */
export interface ApprovalTable {
  id: Generated<number>;
  project_id: number;
  /** `pending`, `approved` or `rejected`. */
  status: string;
  workflow_run_id: number | null;
  workflow_id: number | null;
  node_id: string | null;
  attempt: number | null;
  task_id: number | null;
  template_id: number | null;
  title: string;
  requester_id: number | null;
  /** JSON WorkflowApprovers: `{users, roles, groups}`. */
  approvers: string;
  required_approvals: number;
  allow_self_approval: number;
  /** ISO time after which the timeout sweep decides it by `on_timeout`; null: no timeout. */
  deadline: string | null;
  on_timeout: string;
  created: string;
  decided: string | null;
  /** The deciding user's login, `timeout`, or `canceled`. */
  decided_by: string | null;
}

/** One user's vote on an approval; (approval_id, user_id) is the key. */
export interface ApprovalVoteTable {
  approval_id: number;
  user_id: number;
  /** `approve` or `reject`. */
  decision: string;
  comment: string;
  created: string;
}

/** A signed one-time approval link already used (sha256 of its token). */
export interface ApprovalLinkUseTable {
  token_hash: string;
  approval_id: number;
  user_id: number;
  used: string;
}
