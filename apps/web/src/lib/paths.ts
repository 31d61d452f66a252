/** Every route of the console, in one place. */
export const paths = {
  root: '/',
  login: '/auth/login',
  newProject: '/project/new',
  restoreProject: '/project/restore',
  project: (id: number | string) => `/project/${id}`,
  history: (id: number | string) => `/project/${id}/history`,
  settings: (id: number | string) => `/project/${id}/settings`,
  activity: (id: number | string) => `/project/${id}/activity`,
  projectSection: (id: number | string, section: string) => `/project/${id}/${section}`,
  integrations: (id: number | string) => `/project/${id}/integrations`,
  hosts: (id: number | string) => `/project/${id}/hosts`,
  notifications: (id: number | string) => `/project/${id}/notifications`,
  integration: (id: number | string, integrationId: number | string) => `/project/${id}/integrations/${integrationId}`,
  workflows: (id: number | string) => `/project/${id}/workflows`,
  /** A workflow's editor; `new` for one not saved yet. */
  workflow: (id: number | string, workflowId: number | string) => `/project/${id}/workflows/${workflowId}`,
  workflowRun: (id: number | string, workflowId: number | string, runId: number | string) =>
    `/project/${id}/workflows/${workflowId}/runs/${runId}`,
  users: '/users',
  tokens: '/tokens',
  tasks: '/tasks',
  apps: '/apps',
  runners: '/runners',
  cluster: '/cluster',
  identityMappings: '/identity-mappings',
  security: '/security',
  audit: '/audit',
  /** Server-wide notification destinations and rules (admins). */
  globalNotifications: '/notifications',
} as const;
