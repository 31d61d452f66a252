import { parseArgs } from 'node:util';
import type { Task } from '@gantry/contracts';
import type { ApiClient } from './api-client.js';
import { CliError } from './cli-error.js';
import { followTask } from './follow.js';
import { parsePairs } from './input.js';
import { findProject, findTemplate, splitTarget } from './lookup.js';
import { colour, logLineText, parseOutputFormat, printJson } from './output.js';

export const RUN_OPTIONS = {
  param: { type: 'string', multiple: true },
  limit: { type: 'string' },
  branch: { type: 'string' },
  message: { type: 'string' },
  follow: { type: 'boolean' },
  output: { type: 'string' },
  profile: { type: 'string' },
} as const;

/** Exit codes of `run --follow`, for CI pipelines. */
export const EXIT_SUCCESS = 0;
export const EXIT_FAILED = 1;
export const EXIT_STOPPED = 2;

interface TemplateInfo {
  id: number;
  name: string;
  survey_vars: { name: string; type: string }[];
}

// The task's run options (contracts' taskParamsSchema) a --param may set, and how each is typed.
const BOOLEAN_PARAMS = new Set([
  'debug',
  'dry_run',
  'diff',
  'plan',
  'destroy',
  'auto_approve',
  'upgrade',
  'reconfigure',
]);
const LIST_PARAMS = new Set(['tags', 'skip_tags']);

/**
 * `gantry run <project>/<template>`: starts a task and prints its number and address; with
 * --follow, streams its log and exits 0 on success, 1 on failure, 2 when stopped or rejected.
 */
export async function runCommand(args: string[], connect: (profile?: string) => ApiClient): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: RUN_OPTIONS, allowPositionals: true });
  const format = parseOutputFormat(values.output);
  const [projectRef, templateRef] = splitTarget(
    positionals,
    'Usage: gantry run <project>/<template> [--param k=v ...] [--limit L] [--branch B] [--message M] [--follow]',
  );
  const client = connect(values.profile);
  const project = await findProject(client, projectRef);
  const template = await findTemplate<TemplateInfo>(client, project.id, templateRef);

  const body = taskBody(template, parsePairs(values.param ?? [], '--param'));
  if (values.limit !== undefined) body.limit = values.limit;
  if (values.branch !== undefined) body.git_branch = values.branch;
  if (values.message !== undefined) body.message = values.message;
  const task = await client.request<Task>('POST', `/project/${project.id}/tasks`, body);
  const url = `${client.base}/project/${project.id}/history?t=${task.id}`;
  if (format === 'json') printJson(task);
  else process.stdout.write(`Task #${task.id} of ${project.name}/${template.name} started: ${url}\n`);
  if (!values.follow) return EXIT_SUCCESS;

  // With JSON on stdout, the log goes to stderr so stdout stays one parseable document per object.
  const logOut = format === 'json' ? process.stderr : process.stdout;
  const status = await followTask(client, {
    projectId: project.id,
    taskId: task.id,
    onLine: (text) => logOut.write(`${logLineText(text)}\n`),
    onFallback: (reason) => process.stderr.write(`Live log unavailable (${reason}); reading it every second instead\n`),
  });
  const code = status === 'success' ? EXIT_SUCCESS : status === 'error' ? EXIT_FAILED : EXIT_STOPPED;
  if (format === 'json') printJson(await client.get<Task>(`/project/${project.id}/tasks/${task.id}`));
  else {
    const tint = code === EXIT_SUCCESS ? 'green' : code === EXIT_FAILED ? 'red' : 'yellow';
    process.stdout.write(`${colour(tint, `Task #${task.id} ended: ${status}`)}\n`);
  }
  return code;
}

/**
 * Where each --param goes, as the console would send it: a survey variable's answer into
 * `environment` (a secret one into `secret`), a run option (debug, tags, ...) into `params`,
 * anything else as an extra variable (the server refuses it unless the template allows them).
 */
function taskBody(template: TemplateInfo, pairs: [string, string][]): Record<string, unknown> {
  const environment: Record<string, unknown> = {};
  const secret: Record<string, unknown> = {};
  const params: Record<string, unknown> = {};
  const survey = new Map((template.survey_vars ?? []).map((v) => [v.name, v.type]));
  for (const [key, value] of pairs) {
    const type = survey.get(key);
    if (type === 'secret') {
      process.stderr.write(
        `Warning: --param ${key} is a secret given on the command line (visible in ps and shell history)\n`,
      );
      secret[key] = value;
    } else if (type !== undefined) environment[key] = value;
    else if (BOOLEAN_PARAMS.has(key)) params[key] = parseBoolean(key, value);
    else if (key === 'debug_level') params[key] = Number(value);
    else if (LIST_PARAMS.has(key))
      params[key] = value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else environment[key] = value;
  }
  return {
    template_id: template.id,
    params,
    environment: JSON.stringify(environment),
    ...(Object.keys(secret).length ? { secret: JSON.stringify(secret) } : {}),
  };
}

function parseBoolean(key: string, value: string): boolean {
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  throw new CliError(`--param ${key} takes true or false`);
}
