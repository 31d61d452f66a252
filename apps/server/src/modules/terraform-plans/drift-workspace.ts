import { ErrorCodes, WORKSPACE_INVENTORY_TYPES, type Inventory, type Template } from '@gantry/contracts';
import { ValidationError } from '../../platform/errors.js';

/**
 * The workspace a drift check plans: any workspace of its template (its default, one attached to
 * it, or one of its run-time inventory choices), whether or not the template lets an ordinary run
 * choose, since a drift check only plans. `inv` is the given inventory as this project has it
 * (null: not in the project). Throws a 400 naming `field` otherwise.
 */
export function driftWorkspace(
  template: Pick<Template, 'id' | 'inventory_id' | 'task_params'>,
  inv: (Pick<Inventory, 'id' | 'template_id'> & { type: string }) | null,
  field: string,
): number {
  if (!inv)
    throw new ValidationError('Workspace not found in this project', {
      code: ErrorCodes.notInProject,
      label_key: 'workspace',
      field,
    });
  const attached =
    inv.id === template.inventory_id ||
    inv.template_id === template.id ||
    template.task_params.inventory_choices.includes(inv.id);
  if (!(WORKSPACE_INVENTORY_TYPES as readonly string[]).includes(inv.type) || !attached)
    throw new ValidationError("This workspace is not one of the template's workspaces", {
      code: ErrorCodes.runChoiceNotOffered,
      label_key: 'workspace',
      field,
    });
  return inv.id;
}
