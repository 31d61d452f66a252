import { zodResolver } from '@hookform/resolvers/zod';
import { projectUpdateSchema, type Project } from '@gantry/contracts';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import type { ProjectFormValues } from './project-form-fields';

/** Form state validated by the contracts' project schema (the same rules the server applies). */
const formSchema = z.object({
  name: z.string(),
  alert: z.boolean(),
  alert_chat: z.string(),
  max_parallel_tasks: z.string(),
}).superRefine((v, ctx) => {
  const r = projectUpdateSchema.safeParse(v);
  if (!r.success) for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', path: issue.path as string[], message: issue.message });
});

export function useProjectForm(project?: Project) {
  return useForm<ProjectFormValues>({
    resolver: zodResolver(formSchema),
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
