import { TASK_OUTPUT_MAX_BYTES } from '@gantry/contracts';
import { maskSecrets } from '../platform/mask-secrets.js';
import { safeReadFile, UnsafePathError } from './safe-fs.js';

/*
 * A task's outputs passed on (workflows): the task may leave one JSON object in the file named by
 * GANTRY_OUTPUT; the server reads it when the process has ended, before the workspace goes, and
 * stores it with the task. Later tasks get the outputs of earlier ones as data (`inputs`).
 */

/** The output file's name in the task's workspace (its top folder, which the task may write). */
export const OUTPUT_FILE = 'gantry-output.json';

/** Objects and arrays nested deeper than this are refused: the output is data, and later runs walk it recursively. */
export const OUTPUT_MAX_DEPTH = 64;

/**
 * Inputs larger than this (as JSON) do not go in an environment variable: Linux refuses to start
 * a process with one variable over 128 KiB. The file named by GANTRY_OUTPUTS_FILE has them all.
 */
export const INPUTS_ENV_MAX_BYTES = 64 * 1024;

/** The environment variable naming the file that holds earlier nodes' outputs (JSON), for scripts and Terraform. */
export const INPUTS_FILE_ENV = 'GANTRY_OUTPUTS_FILE';

/** Why the output file was not taken; its message is the task's log line. */
export class TaskOutputError extends Error {}

export const OUTPUT_TOO_LARGE = `The output file is larger than 1 MiB (${TASK_OUTPUT_MAX_BYTES} bytes): the task's output was not kept`;
export const OUTPUT_NOT_OBJECT = "The output file is not a JSON object: the task's output was not kept";
export const OUTPUT_TOO_DEEP = `The output file nests objects or arrays deeper than ${OUTPUT_MAX_DEPTH} levels: the task's output was not kept`;

/**
 * The object the task left, or null when it left none. Read without following any link the task
 * made (safe-fs), at most TASK_OUTPUT_MAX_BYTES + 1 bytes. `root` is the workspace's real path,
 * resolved before any task process ran. Throws TaskOutputError saying what was wrong.
 */
export function readTaskOutput(root: string): Record<string, unknown> | null {
  let data: Buffer | null;
  try {
    data = safeReadFile(root, OUTPUT_FILE, TASK_OUTPUT_MAX_BYTES);
  } catch (e) {
    if (!(e instanceof UnsafePathError)) throw e;
    if (e.reason.startsWith('is larger than')) throw new TaskOutputError(OUTPUT_TOO_LARGE);
    // A link (to /etc/passwd, to the data folder...), a pipe, a hard link: never read through.
    throw new TaskOutputError(`The output file was not read: it ${e.reason}`);
  }
  return data === null ? null : parseTaskOutput(data.toString('utf8'));
}

/** The output object in `text`, checked as it will be stored; throws TaskOutputError. */
export function parseTaskOutput(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TaskOutputError(OUTPUT_NOT_OBJECT);
  }
  if (!isPlainObject(value)) throw new TaskOutputError(OUTPUT_NOT_OBJECT);
  if (depthOver(value, OUTPUT_MAX_DEPTH)) throw new TaskOutputError(OUTPUT_TOO_DEEP);
  // As stored (numbers written out may be longer than in the file): the limit holds for that too.
  if (Buffer.byteLength(JSON.stringify(value)) > TASK_OUTPUT_MAX_BYTES) throw new TaskOutputError(OUTPUT_TOO_LARGE);
  return value;
}

/** The stored form of an output or of inputs: JSON text, or null. */
export function storedJson(value: Record<string, unknown> | null | undefined): string | null {
  return value ? JSON.stringify(value) : null;
}

/**
 * The output with the run's secrets (keys, the variable group's secrets, secret answers) masked in
 * every string, as its log has them: the output is answered by the API and handed to later
 * nodes, which have their own variable groups to get secrets from.
 */
export function maskOutput(
  value: Record<string, unknown> | null | undefined,
  secrets: readonly string[],
): Record<string, unknown> | null {
  if (!value) return null;
  if (secrets.length === 0) return value;
  const mask = (v: unknown): unknown => {
    if (typeof v === 'string') return maskSecrets(v, secrets);
    if (Array.isArray(v)) return v.map(mask);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [maskSecrets(k, secrets), mask(x)]));
    return v;
  };
  return mask(value) as Record<string, unknown>;
}

/** A stored JSON object (task.output, task.inputs); null when absent or not an object. */
export function parseStoredObject(text: string | null | undefined): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    return isPlainObject(v) ? v : null;
  } catch {
    return null;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whether `value` nests deeper than `max`; iterative, so a hostile file cannot exhaust the stack here. */
function depthOver(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(v as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  return false;
}
