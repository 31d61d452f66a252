import { ErrorCodes, type templateInputSchema } from '@gantry/contracts';
import type { z } from 'zod';
import { templateIdList } from '../../db/template-lists.js';
import { ValidationError } from '../../platform/errors.js';

type Input = Pick<
  z.output<typeof templateInputSchema>,
  'environment_id' | 'environment_ids' | 'inventory_id' | 'inventory_ids' | 'task_params'
>;
type Exists = (projectId: number, id: number) => Promise<unknown>;
type Stored = {
  environment_id: number;
  environment_ids: string | null;
  inventory_id: number | null;
  inventory_ids: string | null;
};

/** The ordered lists a template is saved with; each list's first is the single id Semaphore knows. */
export interface TemplateLists {
  environment_ids: number[];
  inventory_ids: number[];
}

/**
 * One list from a request and what is stored. A given non-empty list wins. Without a list (a
 * Semaphore client knows only the single id) the stored list is kept while its first is that id,
 * so re-saving such a template never drops its extra groups; another id replaces the list.
 */
export function resolveList(
  first: number | null | undefined,
  list: number[] | null | undefined,
  stored: number[] | null,
): number[] {
  if (list?.length) return list;
  if (!first) return [];
  if (list == null && stored?.[0] === first) return stored;
  return [first];
}

/** The lists to save: from the request, keeping a stored list a Semaphore client does not know of. */
export function listsToSave(t: Input, stored: Stored | null): TemplateLists {
  return {
    environment_ids: resolveList(
      t.environment_id,
      t.environment_ids,
      stored && templateIdList(stored.environment_id, stored.environment_ids),
    ),
    inventory_ids: resolveList(
      t.inventory_id,
      t.inventory_ids,
      stored && templateIdList(stored.inventory_id, stored.inventory_ids),
    ),
  };
}

/** Every id of the lists and of the run-time choices must be a variable group / inventory of the project. */
export async function checkListLinks(
  projectId: number,
  t: Input,
  lists: TemplateLists,
  links: { environments: { get: Exists }; inventories: { get: Exists } },
): Promise<void> {
  const groupExists: Exists = (p, id) => links.environments.get(p, id);
  const inventoryExists: Exists = (p, id) => links.inventories.get(p, id);
  await assertAllInProject(projectId, lists.environment_ids, groupExists, groupRefusal(t.environment_ids));
  await assertAllInProject(projectId, lists.inventory_ids, inventoryExists, inventoryRefusal(t.inventory_ids));
  const tp = t.task_params;
  await assertAllInProject(projectId, tp.environment_choices, groupExists, choiceRefusal('environment_choices'));
  await assertAllInProject(projectId, tp.inventory_choices, inventoryExists, choiceRefusal('inventory_choices'));
}

/** Where one id of a list is checked, so a refusal names its place in the request. */
function fieldOf(listField: string, singleField: string, given: number[] | null | undefined, i: number): string {
  return given?.length ? `${listField}.${i}` : singleField;
}

/** Every id of `ids` must be a row of the project: else a 400 naming the field and what it should be. */
export async function assertAllInProject(
  projectId: number,
  ids: number[],
  exists: Exists,
  what: { message: string; label_key: string; field: (i: number) => string },
): Promise<void> {
  for (const [i, id] of ids.entries()) {
    await exists(projectId, id).catch(() => {
      throw new ValidationError(what.message, {
        code: ErrorCodes.notInProject,
        label_key: what.label_key,
        field: what.field(i),
      });
    });
  }
}

/** The message and field of a variable group list's refusal (input list or its single id). */
export function groupRefusal(given: number[] | null | undefined) {
  return {
    message: 'Variable group not found in this project',
    label_key: 'variable_group',
    field: (i: number) => fieldOf('environment_ids', 'environment_id', given, i),
  };
}

/** The message and field of an inventory list's refusal (input list or its single id). */
export function inventoryRefusal(given: number[] | null | undefined) {
  return {
    message: 'Inventory not found in this project',
    label_key: 'inventory',
    field: (i: number) => fieldOf('inventory_ids', 'inventory_id', given, i),
  };
}

/** A run-time choice list's refusal (task_params.environment_choices / inventory_choices). */
export function choiceRefusal(field: 'environment_choices' | 'inventory_choices') {
  const group = field === 'environment_choices';
  return {
    message: group ? 'Variable group not found in this project' : 'Inventory not found in this project',
    label_key: group ? 'variable_group' : 'inventory',
    field: (i: number) => `task_params.${field}.${i}`,
  };
}
