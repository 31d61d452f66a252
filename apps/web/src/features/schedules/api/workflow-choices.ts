import type { Workflow } from '@gantry/contracts';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/**
 * The project's workflows, for the "runs a workflow" choice of schedules and integrations. Same
 * key as the workflows page's list, so both share one cached answer.
 */
export const workflowChoicesQuery = (p: number) =>
  queryOptions({
    queryKey: ['project', p, 'workflows'],
    queryFn: () => api.get<Workflow[]>(`/project/${p}/workflows`),
  });

/** What a schedule or an integration starts. */
export type StartKind = 'template' | 'workflow';

/** A saved one's kind: a workflow id means a workflow (its template_id is 0 then). */
export const startKindOf = (item: { workflow_id: number | null } | null): StartKind =>
  item?.workflow_id ? 'workflow' : 'template';

/**
 * The body's `workflow_id` while the workflow picker is still empty: an id the contract refuses
 * with its "Workflow is required" on `workflow_id` (no id at all would read as "neither", which
 * the contract answers on `template_id`, a field the form does not show then). Never sent: the
 * form checks the body first.
 */
export const WORKFLOW_NOT_CHOSEN = -1;
