/** The console's addresses for approvals (the notification's link lands on /approvals/{id}?t=...). */
export const approvalsInboxPath = '/approvals';
export const projectApprovalsPath = (p: number | string) => `/project/${p}/approvals`;
export const approvalPath = (p: number | string, id: number | string) => `/project/${p}/approvals/${id}`;
export const workflowRunPath = (p: number, workflowId: number, runId: number) =>
  `/project/${p}/workflows/${workflowId}/runs/${runId}`;
