import { z } from 'zod';
import type { Coded } from './coded.js';
import { codedIssue } from './coded.js';
import { ErrorCodes } from './errors.js';
import { requiredIssue, requiredMessage } from './fields.js';

/**
 * What a schedule or an integration starts: a template (all Semaphore knows) or a workflow
 * (Gantry's own). Exactly one of the two ids; 0, '' and null mean none, so a Semaphore client's
 * body and the answer's `template_id: 0` of a workflow one both read as "no template".
 */
export function optionalStartId(label: 'Template' | 'Workflow') {
  const bad = requiredMessage(label);
  return z.preprocess(
    (v) => (v === '' || v === 0 || v === null ? undefined : v),
    z.coerce.number(bad).int(bad).positive(bad).optional(),
  );
}

/** The issue of a body naming neither or both (null when it names exactly one). */
export function startTargetIssue(v: {
  template_id?: number | null;
  workflow_id?: number | null;
}): { path: string[]; message: string; params: Coded } | null {
  // Neither: Semaphore's own answer, the template is required (its clients know no workflows).
  if (!v.template_id && !v.workflow_id) return { path: ['template_id'], ...requiredIssue('Template') };
  if (v.template_id && v.workflow_id) {
    return {
      path: ['workflow_id'],
      ...codedIssue('Give a template or a workflow, not both', ErrorCodes.templateOrWorkflowRequired),
    };
  }
  return null;
}
