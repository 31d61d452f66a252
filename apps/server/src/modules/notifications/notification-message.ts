import { planCounts, type PlanSummary } from '@gantry/contracts';

/**
 * Why a notification is sent: a task reached a final status, it waits for someone to confirm it,
 * an approval waits, or a drift check found changes nobody applied.
 */
export type NotificationEvent = 'task_finished' | 'task_waiting_confirmation' | 'approval_requested' | 'drift';

/** The counts a plan line names. */
export type PlanCounts = Pick<PlanSummary, 'create' | 'update' | 'replace' | 'destroy'>;

/** Final statuses that notify; `rejected` does not, as the person who rejected the task already knows. */
export const NOTIFYING_FINAL_STATUSES: readonly string[] = ['success', 'error', 'stopped'];

/** The event a task status gives rise to, or null when that status notifies nobody. */
export function notificationEventFor(status: string): NotificationEvent | null {
  if (status === 'waiting_confirmation') return 'task_waiting_confirmation';
  return NOTIFYING_FINAL_STATUSES.includes(status) ? 'task_finished' : null;
}

export interface MessageInput {
  projectId: number;
  projectName: string;
  templateId: number;
  templateName: string;
  taskId: number;
  status: string;
  /** Who started the task (a user's name, or what started it); null when unknown. */
  author: string | null;
  /** Public URL of the console without a trailing slash; empty gives a relative link. */
  webHost: string;
  /** The task's plan, when it made one: a waiting-for-confirmation message carries its counts. */
  plan?: PlanCounts | null;
  /** A drift check's finding (a `drift` message): the workspace's name (null: the template's own state) and the changes. */
  drift?: { workspace: string | null; changes: PlanCounts | null } | null;
}

/** One notification, already worded: every channel picks the fields it needs. */
export interface NotificationMessage {
  event: NotificationEvent;
  projectId: number;
  projectName: string;
  templateId: number;
  templateName: string;
  taskId: number;
  status: string;
  author: string | null;
  /** Link to the task in the console. */
  url: string;
  /** One line: what happened (email subject, card title). */
  title: string;
  /** Plain text: the title, the details and the link. */
  text: string;
  /** Hex colour without `#` for cards (green success, red error, amber waiting, grey otherwise). */
  color: string;
  /** For `approval_requested`: the approval waiting for a decision. */
  approvalId?: number;
}

export interface ApprovalMessageInput {
  projectId: number;
  projectName: string;
  approvalId: number;
  /** What waits ("Task #12 of Deploy", "Release / approve-prod"). */
  approvalTitle: string;
  templateId: number | null;
  templateName: string | null;
  taskId: number | null;
  requester: string | null;
  requiredApprovals: number;
  deadline: string | null;
  /** The link to open the approval: a personal signed one-time link, or the plain console page. */
  url: string;
}

/** Builds the words of an "approval requested" notification; pure. */
export function buildApprovalMessage(i: ApprovalMessageInput): NotificationMessage {
  const title = `[${i.projectName}] Approval needed: ${i.approvalTitle}`;
  const lines = [title, `Project: ${i.projectName}`];
  if (i.templateName) lines.push(`Template: ${i.templateName}`);
  if (i.taskId !== null) lines.push(`Task: #${i.taskId}`);
  if (i.requester) lines.push(`Requested by: ${i.requester}`);
  lines.push(`Approvals needed: ${i.requiredApprovals}`);
  if (i.deadline) lines.push(`Decide before: ${i.deadline}`);
  lines.push('Approve or reject it in Gantry:', i.url);
  return {
    event: 'approval_requested',
    projectId: i.projectId,
    projectName: i.projectName,
    templateId: i.templateId ?? 0,
    templateName: i.templateName ?? '',
    taskId: i.taskId ?? 0,
    status: 'pending',
    author: i.requester,
    url: i.url,
    title,
    text: lines.join('\n'),
    color: 'F0AD4E',
    approvalId: i.approvalId,
  };
}

const HEADLINES: Record<string, string> = {
  success: 'succeeded',
  error: 'failed',
  stopped: 'was stopped',
  rejected: 'was rejected',
  waiting_confirmation: 'is waiting for confirmation',
};

const COLORS: Record<string, string> = {
  success: '2EB886',
  error: 'D9534F',
  waiting_confirmation: 'F0AD4E',
};

/** Builds the words of a notification from a task's facts; pure. */
export function buildMessage(i: MessageInput): NotificationMessage {
  if (i.drift) return buildDriftMessage(i, i.drift);
  const event: NotificationEvent = i.status === 'waiting_confirmation' ? 'task_waiting_confirmation' : 'task_finished';
  const url = `${i.webHost}/project/${i.projectId}/templates/${i.templateId}?t=${i.taskId}`;
  const title = `[${i.projectName}] Task #${i.taskId} of ${i.templateName} ${HEADLINES[i.status] ?? `ended: ${i.status}`}`;
  const lines = [
    title,
    `Project: ${i.projectName}`,
    `Template: ${i.templateName}`,
    `Task: #${i.taskId}`,
    `Status: ${i.status}`,
  ];
  if (i.author) lines.push(`Started by: ${i.author}`);
  if (event === 'task_waiting_confirmation') {
    if (i.plan) lines.push(`Plan: ${planCounts(i.plan)}`);
    lines.push('The plan is ready: confirm or reject the task in Gantry.');
  }
  lines.push(url);
  return {
    event,
    projectId: i.projectId,
    projectName: i.projectName,
    templateId: i.templateId,
    templateName: i.templateName,
    taskId: i.taskId,
    status: i.status,
    author: i.author,
    url,
    title,
    text: lines.join('\n'),
    color: COLORS[i.status] ?? '888888',
  };
}

/** A drift check found changes nobody applied: the template, the workspace and the plan's counts. */
function buildDriftMessage(i: MessageInput, d: NonNullable<MessageInput['drift']>): NotificationMessage {
  const url = `${i.webHost}/project/${i.projectId}/templates/${i.templateId}?t=${i.taskId}`;
  const where = d.workspace ? `${i.templateName} (workspace ${d.workspace})` : i.templateName;
  const title = `[${i.projectName}] Drift found in ${where}`;
  const lines = [title, `Project: ${i.projectName}`, `Template: ${i.templateName}`];
  if (d.workspace) lines.push(`Workspace: ${d.workspace}`);
  lines.push(`Drift check: task #${i.taskId}`);
  if (d.changes) lines.push(`Changes: ${planCounts(d.changes)}`);
  lines.push('The infrastructure no longer matches the configuration and state; review the plan in Gantry.', url);
  return {
    event: 'drift',
    projectId: i.projectId,
    projectName: i.projectName,
    templateId: i.templateId,
    templateName: i.templateName,
    taskId: i.taskId,
    status: 'drifted',
    author: i.author,
    url,
    title,
    text: lines.join('\n'),
    color: 'F0AD4E',
  };
}
