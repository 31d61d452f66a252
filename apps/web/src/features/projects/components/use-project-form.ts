import { projectUpdateSchema, type Project } from '@gantry/contracts';
import { useForm } from 'react-hook-form';
import { contractResolver } from '../../../lib/contract-resolver';
import type { ProjectFormValues } from './project-form-fields';

/** Form state validated by the contracts' project schema (the same rules the server applies). */
export function useProjectForm(project?: Project) {
  return useForm<ProjectFormValues>({
    resolver: contractResolver<ProjectFormValues>(projectUpdateSchema),
    defaultValues: {
      name: project?.name ?? '',
      alert: project?.alert ?? false,
      alert_chat: project?.alert_chat ?? '',
      max_parallel_tasks: project ? String(project.max_parallel_tasks) : '',
    },
  });
}

/** The request body: empty max parallel tasks is sent as 0. */
export function toProjectBody(v: ProjectFormValues) {
  return projectUpdateSchema.parse(v);
}
