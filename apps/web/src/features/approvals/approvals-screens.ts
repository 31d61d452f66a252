// One lazy chunk for the approvals pages: routes.tsx imports this file dynamically.
export { ApprovalLinkPage } from './approval-link-page';
export { ApprovalPage } from './approval-page';
export { ApprovalsInboxPage } from './approvals-inbox-page';
export { ProjectApprovalsPage } from './project-approvals-page';
