import { ErrorCodes, type Template, type TemplateTaskParams } from '@gantry/contracts';
import { ValidationError } from '../../platform/errors.js';
import { checkBranch } from './task-input.js';

type Exists = (projectId: number, id: number) => Promise<unknown>;

function notAllowed(label_key: string, field: string, what: string): ValidationError {
  return new ValidationError(`The template does not let a task choose its ${what}`, {
    code: ErrorCodes.runChoiceNotAllowed,
    label_key,
    field,
  });
}

function notOffered(label_key: string, field: string, what: string): ValidationError {
  return new ValidationError(`This ${what} is not one of the template's run-time choices`, {
    code: ErrorCodes.runChoiceNotOffered,
    label_key,
    field,
  });
}

function notInProject(label_key: string, field: string, what: string): ValidationError {
  return new ValidationError(`${what} not found in this project`, { code: ErrorCodes.notInProject, label_key, field });
}

/**
 * A task's run-time choice of variable group (it replaces the template's list), or null for the
 * template's. Refused unless the template allows it; the template's own first group given back
 * unasked (a client echoing a task) is simply the template's.
 */
export async function chosenGroup(
  projectId: number,
  template: Pick<Template, 'environment_id'>,
  tp: TemplateTaskParams,
  given: number | null | undefined,
  exists: Exists,
): Promise<number | null> {
  if (!given) return null;
  const field = 'environment_id';
  if (!tp.allow_override_environment) {
    if (given === template.environment_id) return null;
    throw notAllowed('variable_group', field, 'variable group');
  }
  if (tp.environment_choices.length && !tp.environment_choices.includes(given))
    throw notOffered('variable_group', field, 'variable group');
  await exists(projectId, given).catch(() => {
    throw notInProject('variable_group', field, 'Variable group');
  });
  return given;
}

/**
 * A task's inventory (a workspace for Terraform/OpenTofu), or null for the template's. As in
 * Semaphore, a choice the template does not allow is ignored; an allowed one must be offered.
 */
export async function chosenInventory(
  projectId: number,
  tp: TemplateTaskParams,
  given: number | null | undefined,
  exists: Exists,
): Promise<number | null> {
  if (!given || !tp.allow_override_inventory) return null;
  const field = 'inventory_id';
  if (tp.inventory_choices.length && !tp.inventory_choices.includes(given))
    throw notOffered('inventory', field, 'inventory');
  await exists(projectId, given).catch(() => {
    throw notInProject('inventory', field, 'Inventory');
  });
  return given;
}

/** A task's branch when the template allows one: a valid name, one of branch_choices when it has any. */
export function chosenBranch(
  template: Pick<Template, 'allow_override_branch_in_task'>,
  tp: TemplateTaskParams,
  given: string | null | undefined,
): string | null {
  if (!template.allow_override_branch_in_task) return null;
  const branch = checkBranch(given);
  if (branch && tp.branch_choices.length && !tp.branch_choices.includes(branch))
    throw notOffered('branch', 'git_branch', 'branch');
  return branch;
}
