import type { NotificationRule, Schedule, Template } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { projectQueries } from '../../../lib/project-queries';
import type { NotificationScope } from '../api/notifications-api';

/** The templates and schedules a project rule can be narrowed to (none for global rules). */
export function useScopeChoices(scope: NotificationScope) {
  const p = scope.projectId ?? 0;
  const enabled = scope.projectId !== null;
  const templates = useQuery({ ...projectQueries.templates(p), enabled }).data ?? [];
  // The schedules page's key, so that both share one cache entry.
  const schedules =
    useQuery({
      queryKey: ['project', p, 'schedules'],
      queryFn: () => api.get<Schedule[]>(`/project/${p}/schedules`),
      enabled,
    }).data ?? [];
  return { templates, schedules };
}

/** What a rule covers, for the select: '' (the whole project, or every project), `template:<id>` or `schedule:<id>`. */
export const scopeValue = (r: Pick<NotificationRule, 'template_id' | 'schedule_id'> | null) =>
  r?.template_id ? `template:${r.template_id}` : r?.schedule_id ? `schedule:${r.schedule_id}` : '';

export function parseScopeValue(v: string): { template_id: number | null; schedule_id: number | null } {
  const [kind, id] = v.split(':');
  return {
    template_id: kind === 'template' ? Number(id) : null,
    schedule_id: kind === 'schedule' ? Number(id) : null,
  };
}

/** A rule's template or schedule by name (`#id` when it is not in the lists, e.g. still loading). */
export function scopeName(
  r: Pick<NotificationRule, 'template_id' | 'schedule_id'>,
  templates: Template[],
  schedules: Schedule[],
): { kind: 'template' | 'schedule' | null; name: string } {
  if (r.template_id)
    return { kind: 'template', name: templates.find((x) => x.id === r.template_id)?.name ?? `#${r.template_id}` };
  if (r.schedule_id)
    return { kind: 'schedule', name: schedules.find((x) => x.id === r.schedule_id)?.name ?? `#${r.schedule_id}` };
  return { kind: null, name: '' };
}
