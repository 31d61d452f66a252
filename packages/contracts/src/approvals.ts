import { z } from 'zod';
import { idParamSchema } from './fields.js';
import { workflowApproversSchema } from './workflows.js';

/**
 * An approval: a workflow's approval node, or a task of a template whose policy says its tasks
 * need approval before they start. N of its approvers must approve; one rejection rejects.
 */
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** A template's policy: its tasks wait in `waiting_approval` (holding no queue slot) until approved. */
export const approvalPolicySchema = z.object({
  approvers: workflowApproversSchema,
  required_approvals: z.number().int().min(1).max(100).default(1),
  allow_self_approval: z.boolean().default(false),
  timeout_seconds: z
    .number()
    .int()
    .min(60)
    .max(7 * 86_400)
    .nullish(),
  on_timeout: z.enum(['reject', 'approve']).default('reject'),
});
export type ApprovalPolicy = z.output<typeof approvalPolicySchema>;

export const approvalVoteSchema = z.object({
  user_id: z.number().int(),
  username: z.string(),
  decision: z.enum(['approve', 'reject']),
  comment: z.string(),
  created: z.string(),
});
export type ApprovalVote = z.output<typeof approvalVoteSchema>;

export const approvalSchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  status: z.enum(APPROVAL_STATUSES),
  /** What waits: a workflow run's node, or a task. */
  workflow_run_id: z.number().int().nullable(),
  workflow_id: z.number().int().nullable(),
  node_id: z.string().nullable(),
  task_id: z.number().int().nullable(),
  template_id: z.number().int().nullable(),
  /** A readable name of what waits ("Deploy / approve-prod", "Task #12 of Deploy"). */
  title: z.string(),
  requester_id: z.number().int().nullable(),
  approvers: workflowApproversSchema,
  required_approvals: z.number().int(),
  allow_self_approval: z.boolean(),
  deadline: z.string().nullable(),
  on_timeout: z.enum(['reject', 'approve']),
  /** Whether the user asking may vote on it now. */
  can_decide: z.boolean(),
  votes: z.array(approvalVoteSchema),
  created: z.string(),
  decided: z.string().nullable(),
  /** Who or what decided: a username, or `timeout`. */
  decided_by: z.string().nullable(),
});
export type Approval = z.output<typeof approvalSchema>;

export const APPROVAL_COMMENT_MAX = 2000;
export const approvalDecisionSchema = z
  .object({
    comment: z
      .string()
      .max(APPROVAL_COMMENT_MAX)
      .nullish()
      .transform((v) => v ?? ''),
  })
  .nullish()
  .transform((v) => v ?? { comment: '' });
export type ApprovalDecision = z.output<typeof approvalDecisionSchema>;

/** `POST /api/approvals/link`: the token of a signed one-time link from a notification. */
export const approvalLinkInputSchema = z.object({ token: z.string().min(1).max(2000) });
export type ApprovalLinkInput = z.output<typeof approvalLinkInputSchema>;
/** Where the link leads: the console opens this approval of this project. */
export const approvalLinkAnswerSchema = z.object({ project_id: z.number().int(), approval_id: z.number().int() });
export type ApprovalLinkAnswer = z.output<typeof approvalLinkAnswerSchema>;
/**
 * `GET /api/project/:id/approvals?status=&task_id=`: pending ones (default) or all; with `task_id`,
 * only the approval that task of the project waits for (or went through).
 */
export const approvalListQuerySchema = z.object({
  status: z.enum(['pending', 'all']).default('pending'),
  task_id: idParamSchema.optional(),
});
