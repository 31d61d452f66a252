import type { Project, ProjectRole } from '@gantry/contracts';
import type { ProjectRow } from './projects.repository.js';

export function presentProject(row: ProjectRow, role: string | null): Project {
  return {
    id: row.id,
    name: row.name,
    created: row.created,
    type: row.type,
    alert: row.alert === 1,
    alert_chat: row.alert_chat,
    max_parallel_tasks: row.max_parallel_tasks,
    managed_by_code: row.managed_by_code === 1,
    role: (role as ProjectRole | null) ?? null,
  };
}
