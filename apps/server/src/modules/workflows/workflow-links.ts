import { surveyVarFieldsSchema, templateTaskParamsSchema } from '@gantry/contracts';
import { z } from 'zod';
import type { NodeTemplate } from './workflows.service.js';

/** The template columns that say what a task (and so a workflow node) may change. */
export interface TemplateOverrideColumns {
  allow_override_branch_in_task: number;
  allow_extra_vars_in_task: number;
  /** JSON of the template's task params (allow_override_limit, allow_override_inventory...). */
  task_params: string;
  /** JSON list of survey variables. */
  survey_vars: string;
}

/** What a node may override of a template, read from its row. */
export function nodeTemplateOf(row: TemplateOverrideColumns): NodeTemplate {
  const params = templateTaskParamsSchema.parse(JSON.parse(row.task_params));
  const survey = z.array(surveyVarFieldsSchema).catch([]).parse(JSON.parse(row.survey_vars));
  return {
    allowBranch: row.allow_override_branch_in_task === 1,
    allowLimit: params.allow_override_limit,
    allowInventory: params.allow_override_inventory,
    inventoryChoices: params.inventory_choices,
    branchChoices: params.branch_choices,
    allowExtraVars: row.allow_extra_vars_in_task === 1,
    surveyNames: survey.map((v) => v.name),
    surveyVars: survey,
  };
}
