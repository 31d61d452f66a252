import { buildApprovalMessage } from '../notifications/notification-message.js';
import type { NotificationsService } from '../notifications/notifications.service.js';
import type { ApprovalRow, ApprovalsRepository } from './approvals.repository.js';
import { isEligible } from './eligibility.js';
import { workflowApproversSchema } from '@gantry/contracts';

/** Tells an approval's approvers it waits for them. */
export interface ApprovalNotifier {
  requested(approval: ApprovalRow): Promise<void>;
}

/**
 * Through the existing notification channels: every eligible member with an email gets a
 * message with their own signed one-time link; chat and webhooks one with the console's page.
 */
export function channelApprovalNotifier(deps: {
  repo: ApprovalsRepository;
  notifications: Pick<NotificationsService, 'approvalRequested'>;
  webHost: string;
  linkToken: (approval: ApprovalRow, userId: number) => string;
  /** The project's alert settings and names for the message. */
  context: (approval: ApprovalRow) => Promise<{
    projectName: string;
    alert: boolean;
    alertChat: string | null;
    templateName: string | null;
    requester: string | null;
  }>;
}): ApprovalNotifier {
  return {
    async requested(a) {
      const ctx = await deps.context(a);
      const approvers = workflowApproversSchema.parse(JSON.parse(a.approvers));
      const spec = { approvers, requester_id: a.requester_id, allow_self_approval: a.allow_self_approval === 1 };
      const members = (await deps.repo.members(a.project_id)).filter(
        (m) => m.email.trim() && isEligible(spec, { userId: m.user_id, member: m }),
      );
      const base = {
        projectId: a.project_id,
        projectName: ctx.projectName,
        approvalId: a.id,
        approvalTitle: a.title,
        templateId: a.template_id,
        templateName: ctx.templateName,
        taskId: a.task_id,
        requester: ctx.requester,
        requiredApprovals: a.required_approvals,
        deadline: a.deadline,
      };
      await deps.notifications.approvalRequested({
        projectAlert: ctx.alert,
        alertChat: ctx.alertChat,
        shared: buildApprovalMessage({ ...base, url: `${deps.webHost}/project/${a.project_id}/approvals/${a.id}` }),
        personal: members.map((m) => ({
          email: m.email.trim(),
          message: buildApprovalMessage({
            ...base,
            url: `${deps.webHost}/approvals/${a.id}?t=${deps.linkToken(a, m.user_id)}`,
          }),
        })),
      });
    },
  };
}
