import { envNameProblem, taskVariableEnvNames, taskVariableProblem } from '@gantry/contracts';
import type { RunContext } from './run-context.js';

/**
 * The names every source of a task's environment is checked against again here, just before the
 * process starts: whatever reached the database (an old row, a restored backup, a runner's job),
 * a name that would steer the process fails the run rather than reach it.
 */

/**
 * The environment that users gave the run: the variable group's variables (and secret ones),
 * then task input's (an integration's extracted values). Throws, naming the variable, when one
 * may not be set, or when task input (those values, or a variable, which scripts get as an
 * environment variable and Terraform as `TF_VAR_<name>`) would replace one of the group's.
 */
export function userEnvironment(
  ctx: Pick<RunContext, 'groupEnv' | 'taskEnv' | 'untrustedVars'> & { template: Pick<RunContext['template'], 'app'> },
): Record<string, string> {
  for (const name of Object.keys(ctx.groupEnv)) {
    if (envNameProblem(name, 'group'))
      throw new Error(`Environment variable ${name} of the variable group is not allowed`);
  }
  const group = (name: string) => Object.prototype.hasOwnProperty.call(ctx.groupEnv, name);
  for (const name of Object.keys(ctx.taskEnv)) {
    if (envNameProblem(name, 'task')) throw new Error(`Environment variable ${name} of the task is not allowed`);
    if (group(name)) throw new Error(`Environment variable ${name} of the task would replace the variable group's`);
  }
  for (const name of Object.keys(ctx.untrustedVars)) {
    if (taskVariableEnvNames(name, ctx.template.app).some(group))
      throw new Error(`Variable ${name} of the task would replace an environment variable of the variable group`);
  }
  return { ...ctx.groupEnv, ...ctx.taskEnv };
}

/** Task input's extra variables must keep to task input's names (an Ansible magic name would steer the run). */
export function checkUntrustedVars(vars: Record<string, unknown>): void {
  for (const name of Object.keys(vars)) {
    if (taskVariableProblem(name)) throw new Error(`Variable ${name} of the task is not allowed`);
  }
}

/**
 * Extra variables with scalar values (a boolean as `true`/`false`, a task's list of texts as its
 * JSON text), as environment variables for scripts. A group variable
 * whose name cannot be an environment variable is simply not one (it was never declared as one);
 * task input's names were checked by `checkUntrustedVars`.
 */
export function scalarEnv(
  trusted: Record<string, unknown>,
  untrusted: Record<string, unknown>,
): Record<string, string> {
  const out: Record<string, string> = {};
  const scalar = (v: unknown) => ['string', 'number', 'boolean'].includes(typeof v);
  for (const [k, v] of Object.entries(trusted)) if (!envNameProblem(k, 'group') && scalar(v)) out[k] = String(v);
  for (const [k, v] of Object.entries(untrusted)) {
    if (taskVariableProblem(k)) continue;
    if (scalar(v)) out[k] = String(v);
    // A multiple choice answer (a list of texts): its JSON text, which a script can parse.
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = JSON.stringify(v);
  }
  return out;
}
