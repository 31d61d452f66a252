import type { Config } from '../config/config.js';
import type { Db } from '../db/db.js';
import { ApprovalLinkSigner } from '../modules/approvals/approval-link.js';
import { channelApprovalNotifier } from '../modules/approvals/approval-notifier.js';
import { ApprovalsRepository } from '../modules/approvals/approvals.repository.js';
import { ApprovalsService } from '../modules/approvals/approvals.service.js';
import type { AuditService } from '../modules/audit/audit.service.js';
import type { EventsService } from '../modules/events/events.service.js';
import type { NotificationsService } from '../modules/notifications/notifications.service.js';
import type { TasksService } from '../modules/tasks/tasks.service.js';
import type { WorkflowDriver } from '../modules/workflow-runs/workflow-driver.js';
import type { Clock } from '../platform/clock.js';

export interface ApprovalsDeps {
  config: Config;
  db: Db;
  /** The master key: approval links are signed with a key derived from it. */
  secretKey: Buffer;
  clock: Clock;
  events: EventsService;
  tasks: TasksService;
  workflowDriver: WorkflowDriver;
  notifications: NotificationsService;
  audit: AuditService;
}

/** The approvals service, tied both ways to tasks and to the workflow driver, with its notifier. */
export function createApprovals({
  config,
  db,
  secretKey,
  clock,
  events,
  tasks,
  workflowDriver,
  notifications,
  audit,
}: ApprovalsDeps): ApprovalsService {
  // Approvals: workflow approval nodes and tasks held by their template's policy; links signed with a key of their own.
  const approvalsRepo = new ApprovalsRepository(db.db);
  const approvals = new ApprovalsService(approvalsRepo, new ApprovalLinkSigner(secretKey), events, clock);
  approvals.audit = audit;
  approvals.tasks = tasks;
  tasks.approvals = approvals;
  workflowDriver.approvals = approvals;
  // A decided node approval: the driver looks at its runs again now rather than at its next recheck.
  approvals.onDecided(
    (a) => void (a.workflow_run_id !== null && workflowDriver.wake(a.workflow_run_id).catch(() => undefined)),
  );
  approvals.notifier = channelApprovalNotifier({
    repo: approvalsRepo,
    notifications,
    webHost: config.webHost,
    linkToken: (a, userId) => approvals.linkToken(a, userId),
    context: (a) => approvalsRepo.notificationContext(a),
  });
  return approvals;
}
