import type { ApiClient } from './api-client.js';
import { CliError } from './cli-error.js';

interface Named {
  id: number;
  name: string;
}

/**
 * The one object a reference names: a number is an id, anything else a name. Names need not be
 * unique, so two objects of one name ask for the id instead of picking one.
 */
function pick<T extends Named>(rows: T[], ref: string, what: string): T {
  if (/^\d+$/.test(ref)) {
    const byId = rows.find((r) => r.id === Number(ref));
    if (byId) return byId;
  }
  const byName = rows.filter((r) => r.name === ref);
  if (byName.length === 1) return byName[0]!;
  if (byName.length > 1)
    throw new CliError(`Several ${what}s are named "${ref}": give the id (${byName.map((r) => r.id).join(', ')})`);
  throw new CliError(`No ${what} "${ref}"`);
}

export async function findProject(client: ApiClient, ref: string): Promise<Named> {
  return pick(await client.get<Named[]>('/projects'), ref, 'project');
}

export async function findTemplate<T extends Named>(client: ApiClient, projectId: number, ref: string): Promise<T> {
  return pick(await client.get<T[]>(`/project/${projectId}/templates`), ref, 'template');
}

export async function findWorkflow(client: ApiClient, projectId: number, ref: string): Promise<Named> {
  return pick(await client.get<Named[]>(`/project/${projectId}/workflows`), ref, 'workflow');
}

/** A positive whole number given as an id argument. */
export function parseId(text: string | undefined, what: string): number {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) <= 0)
    throw new CliError(`Give the ${what} id (a number)`);
  return Number(text);
}

/** `PROJECT/NAME` of `gantry run` and `gantry workflows run`: the two references, or the usage as an error. */
export function splitTarget(positionals: string[], usage: string): [string, string] {
  const target = positionals[0];
  const slash = target?.indexOf('/') ?? -1;
  if (!target || slash <= 0 || slash === target.length - 1 || positionals.length > 1) throw new CliError(usage);
  return [target.slice(0, slash), target.slice(slash + 1)];
}
