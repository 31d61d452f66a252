import {
  ErrorCodes,
  INCORRECT_BRANCH,
  envNameIssue,
  isValidBranch,
  parseArgumentList,
  replacesGroupEnvMessage,
  taskVariableEnvNames,
  taskVariableIssue,
  type SurveyVar,
  type TaskParams,
  type TemplateTaskParams,
  labelKey,
  type FieldLabel,
} from '@gantry/contracts';
import { ForbiddenError, ValidationError } from '../../platform/errors.js';
import { forbiddenAnsibleArgument } from './ansible-arguments.js';

/** `field`: the request field the text came in (`environment`, `secret`). */
export function parseJsonObject(text: string, what: FieldLabel, field: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text || '{}');
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new ValidationError(`${what} must be a JSON object`, { code: ErrorCodes.jsonObjectRequired, label_key: labelKey(what), field });
}

/**
 * What a task may override is what its template allows; anything else is dropped so a re-run of
 * an old task cannot widen what the template permits. Debug is kept as asked (as Semaphore keeps
 * it): whether it applies depends on who asked, and is decided when the run is loaded, which
 * says so in the task's log when it does not. `limitField`: where the limit came from (`limit` when
 * folded from Semaphore's top-level option).
 */
export function allowedParams(p: TaskParams, t: TemplateTaskParams, limitField = 'params.limit'): TaskParams {
  const out: TaskParams = {
    debug: p.debug,
    debug_level: p.debug ? p.debug_level : undefined,
    dry_run: p.dry_run,
    diff: p.diff,
    plan: p.plan,
    upgrade: p.upgrade,
    reconfigure: p.reconfigure,
  };
  // A drift check plans only (never applies): any task runner may ask for one (terraform-plans checks the template).
  if (p.drift_check) out.drift_check = p.drift_check;
  if (t.allow_destroy) out.destroy = p.destroy;
  if (t.allow_auto_approve) out.auto_approve = p.auto_approve;
  if (t.allow_override_limit) out.limit = cleanList(p.limit, 'Limit', limitField);
  if (t.allow_override_tags) out.tags = cleanList(p.tags, 'Tags', 'params.tags');
  if (t.allow_override_skip_tags) out.skip_tags = cleanList(p.skip_tags, 'Skip tags', 'params.skip_tags');
  return JSON.parse(JSON.stringify(out)) as TaskParams;
}

/** Semaphore's top-level task options (its console sends them beside `params`). */
export interface TopLevelOptions {
  params: TaskParams;
  debug?: boolean | undefined;
  dry_run?: boolean | undefined;
  diff?: boolean | undefined;
  limit?: string | undefined;
  playbook?: string | undefined;
}

/**
 * Folds the top-level options into params, which win when both are given (as Semaphore treats
 * `limit`). The result still goes through `allowedParams`, so the template's rules apply alike.
 * A playbook override is refused: Gantry has no permission for it, and the template's playbook
 * is what its owners reviewed.
 */
export function foldTopLevelOptions(input: TopLevelOptions, templatePlaybook: string): TaskParams {
  const playbook = input.playbook?.trim();
  if (playbook && playbook !== templatePlaybook) throw new ValidationError('Playbook cannot be overridden by a task; leave it empty to run the template playbook', { code: ErrorCodes.playbookOverride, field: 'playbook' });
  const p: TaskParams = { ...input.params };
  if (p.debug === undefined && input.debug !== undefined) p.debug = input.debug;
  if (p.dry_run === undefined && input.dry_run !== undefined) p.dry_run = input.dry_run;
  if (p.diff === undefined && input.diff !== undefined) p.diff = input.diff;
  if (p.limit === undefined && input.limit !== undefined && input.limit.trim() !== '') p.limit = input.limit.split(',');
  return p;
}

/**
 * One host pattern or tag: letters, digits and `_ . * : [ ] -` as Ansible patterns allow, never
 * `@` (Ansible reads `@file`), `,` (one item is one pattern) or a leading `-` / `!`.
 */
const PATTERN_ITEM = /^[A-Za-z0-9_.*:[\]][A-Za-z0-9_.*:[\]-]*$/;

function cleanList(list: string[] | undefined, what: FieldLabel, field: string): string[] | undefined {
  if (!list) return undefined;
  const out = list.map((x) => x.trim()).filter(Boolean);
  const bad = out.find((x) => !PATTERN_ITEM.test(x));
  if (bad !== undefined) throw new ValidationError(`${what} item ${JSON.stringify(bad)} is not a plain host pattern or tag`, { code: ErrorCodes.hostPatternInvalid, label_key: labelKey(what), item: bad, field });
  return out;
}

/**
 * A task's variable names: each one a name task input may take (no Ansible connection or magic
 * variable, no process-steering, connection or trust environment name) and, unless the template
 * allows free extra variables, one of the template's survey variables. `anyName` is for
 * integration-started tasks, whose variable names a manager chose when configuring the
 * integration. `field`: the request field the names come from (`environment`, `secret`).
 */
export function checkTaskVariables(names: string[], survey: SurveyVar[], anyName: boolean, field = 'environment'): void {
  const surveyNames = new Set(survey.map((v) => v.name));
  for (const name of names) {
    const issue = taskVariableIssue(name);
    if (issue) throw new ValidationError(issue.message, { code: issue.code, field, variable: name });
    if (!anyName && !surveyNames.has(name)) throw new ValidationError(`Variable ${name} is not a survey variable of this template`, { code: ErrorCodes.variableNotInSurvey, field, variable: name });
  }
}

/** Environment variables from task input (an integration's extracted values): names task input may set. */
export function checkTaskEnvNames(names: string[]): void {
  for (const name of names) {
    const issue = envNameIssue(name, 'task');
    if (issue) throw new ValidationError(issue.message, { code: issue.code, field: 'env', variable: name });
  }
}

/**
 * Task input never replaces the variable group's environment variables (secret ones included):
 * neither through a variable (scripts get it as an environment variable, Terraform as
 * `TF_VAR_<name>`) nor through an environment variable of its own (`asEnv`).
 */
export function checkGroupEnvKept(names: string[], groupEnv: ReadonlySet<string>, app: string, field: string, asEnv = false): void {
  for (const name of names) {
    const becomes = asEnv ? [name] : taskVariableEnvNames(name, app);
    if (becomes.some((n) => groupEnv.has(n))) throw new ValidationError(replacesGroupEnvMessage(name), { code: ErrorCodes.variableReplacesGroup, field, variable: name });
  }
}

/**
 * Task arguments: a JSON list of strings; for Ansible, none of the options that read files or run
 * commands. `mayOverride` says whether the caller may give arguments at all (managers and up).
 */
export function checkArguments(text: string | null | undefined, app: string, mayOverride: boolean): string | null {
  if (!text) return null;
  const list = parseArgumentList(text);
  if (list === null) throw new ValidationError('Arguments must be a JSON list of strings', { code: ErrorCodes.argumentsNotList, field: 'arguments' });
  if (list.length && !mayOverride) throw new ForbiddenError('Only managers may override the arguments of a task', { code: ErrorCodes.argumentsOverrideForbidden });
  const bad = app === 'ansible' ? forbiddenAnsibleArgument(list) : null;
  if (bad !== null) throw new ValidationError(`Argument ${bad} is not allowed`, { code: ErrorCodes.argumentNotAllowed, argument: bad, field: 'arguments' });
  return text;
}

export function checkBranch(branch: string | null | undefined): string | null {
  if (!branch) return null;
  if (!isValidBranch(branch)) throw new ValidationError(INCORRECT_BRANCH, { code: ErrorCodes.incorrectBranch, field: 'git_branch' });
  return branch;
}

/** The next build version: the last number of the previous version plus one, else the start version. */
export function nextVersion(previous: string | null | undefined, start: string | null): string {
  if (!previous) return start || '1';
  const m = previous.match(/^(.*?)(\d+)(\D*)$/);
  if (!m) return `${previous}.1`;
  return `${m[1]}${Number(m[2]) + 1}${m[3]}`;
}
