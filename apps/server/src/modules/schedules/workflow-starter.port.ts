import { ErrorCodes } from '@gantry/contracts';
import { ValidationError } from '../../platform/errors.js';
import type { Actor } from '../../platform/resource-routes.js';

/** Where a run started by a schedule or an integration came from (the run records it). */
export interface WorkflowStartOrigin {
  scheduleId?: number;
  integrationId?: number;
  /** What an integration's delivery extracted: extra variables and environment variables for each template node's task. */
  values?: { vars: Record<string, unknown>; env: Record<string, string> };
}

/**
 * Starts a workflow run: what schedules and integrations need of the workflow-run engine. The
 * composition root wires the engine's service in; `actor` is null for a start nobody asked for
 * in person (a due schedule, a webhook).
 */
export interface WorkflowStarter {
  start(
    actor: Actor | null,
    projectId: number,
    workflowId: number,
    origin: WorkflowStartOrigin,
  ): Promise<{ id: number }>;
}

/** The one thing schedules and integrations ask of workflows when saved: is it this project's? */
export interface WorkflowLookup {
  get(projectId: number, id: number): Promise<{ id: number; name: string }>;
}

/**
 * For a partial PUT (a field left out keeps its stored value): the template and the workflow
 * are kept only while the body leaves the other one as stored, so a body naming a template
 * switches a workflow's schedule or integration to that template, and the other way round.
 */
export const START_TARGET_BOUND_FIELDS: Record<string, string> = {
  template_id: 'workflow_id',
  workflow_id: 'template_id',
};

/**
 * What a schedule or an integration starts is this project's: its template, or its workflow (the
 * contract lets exactly one of the two through). A 400 naming the field otherwise.
 */
export async function checkStartTarget(
  lookups: { templates: { get(projectId: number, id: number): Promise<unknown> }; workflows: WorkflowLookup },
  projectId: number,
  input: { template_id: number | null; workflow_id: number | null },
): Promise<void> {
  const refuse = (what: 'Template' | 'Workflow', label: 'template' | 'workflow', field: string) => () => {
    throw new ValidationError(`${what} not found in this project`, {
      code: ErrorCodes.notInProject,
      label_key: label,
      field,
    });
  };
  if (input.template_id !== null)
    await lookups.templates.get(projectId, input.template_id).catch(refuse('Template', 'template', 'template_id'));
  if (input.workflow_id !== null)
    await lookups.workflows.get(projectId, input.workflow_id).catch(refuse('Workflow', 'workflow', 'workflow_id'));
}
