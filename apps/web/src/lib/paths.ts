/** Every route of the console, in one place. */
export const paths = {
  root: '/',
  login: '/auth/login',
  newProject: '/project/new',
  project: (id: number | string) => `/project/${id}`,
  history: (id: number | string) => `/project/${id}/history`,
  settings: (id: number | string) => `/project/${id}/settings`,
  activity: (id: number | string) => `/project/${id}/activity`,
  projectSection: (id: number | string, section: string) => `/project/${id}/${section}`,
  users: '/users',
  tokens: '/tokens',
  tasks: '/tasks',
} as const;
