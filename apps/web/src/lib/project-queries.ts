import type { AccessKey, Environment, GantryEvent, Inventory, ProjectUser, Repository, Task, Template, View } from '@gantry/contracts';
import { queryOptions } from '@tanstack/react-query';
import { api } from './api-client';

/**
 * Project resource lists that several screens read (a repository form lists keys, a template
 * form lists everything). Mutations live with their feature and invalidate these keys.
 */
export const projectKeys = {
  keys: (p: number) => ['project', p, 'keys'] as const,
  repositories: (p: number) => ['project', p, 'repositories'] as const,
  inventories: (p: number) => ['project', p, 'inventories'] as const,
  environments: (p: number) => ['project', p, 'environments'] as const,
  team: (p: number) => ['project', p, 'team'] as const,
  events: (p: number) => ['project', p, 'events'] as const,
  templates: (p: number) => ['project', p, 'templates'] as const,
  views: (p: number) => ['project', p, 'views'] as const,
  tasks: (p: number) => ['project', p, 'tasks'] as const,
};

const list = <T,>(key: readonly unknown[], url: string) => queryOptions({ queryKey: key, queryFn: () => api.get<T[]>(url) });

export const projectQueries = {
  keys: (p: number) => list<AccessKey>(projectKeys.keys(p), `/project/${p}/keys`),
  repositories: (p: number) => list<Repository>(projectKeys.repositories(p), `/project/${p}/repositories`),
  inventories: (p: number) => list<Inventory>(projectKeys.inventories(p), `/project/${p}/inventory`),
  environments: (p: number) => list<Environment>(projectKeys.environments(p), `/project/${p}/environment`),
  team: (p: number) => list<ProjectUser>(projectKeys.team(p), `/project/${p}/users?sort=name&order=asc`),
  events: (p: number) => list<GantryEvent>(projectKeys.events(p), `/project/${p}/events/last`),
  templates: (p: number) => list<Template>(projectKeys.templates(p), `/project/${p}/templates`),
  views: (p: number) => list<View>(projectKeys.views(p), `/project/${p}/views`),
  /** The project's last 100 tasks (its history tab), kept live by the socket. */
  history: (p: number) => list<Task>(projectKeys.tasks(p), `/project/${p}/tasks/last?limit=100`),
};
