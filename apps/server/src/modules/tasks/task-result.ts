import type { TaskResult } from '@gantry/contracts';
import type { TaskRow } from './tasks.repository.js';

/** A task's result from its stored JSON: the object it left (GANTRY_OUTPUT) and the outputs it was given. */
export function taskResult(row: Pick<TaskRow, 'output' | 'inputs'>): TaskResult {
  return { output: jsonObjectOrNull(row.output), inputs: jsonObjectOrNull(row.inputs) };
}

/** A stored JSON object (task.output, task.inputs); null when there is none (or it is not one). */
function jsonObjectOrNull(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
