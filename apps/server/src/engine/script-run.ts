import { WORKFLOW_INPUTS_ENV } from '@gantry/contracts';
import { scriptArgv } from './apps/scripts.js';
import type { ExecOptions, ExecutableApp } from './executor-types.js';
import { inside } from './repo-path.js';
import type { RunContext } from './run-context.js';
import { scalarEnv } from './task-env.js';

/** What a script or custom app's run needs of the executor running it. */
export interface ScriptIo {
  /** Runs one sandboxed process to its end (see TaskExecutor.exec); answers its exit code. */
  exec(command: string, args: string[], cwd: string, env: Record<string, string>, o?: ExecOptions): Promise<number>;
  /** Earlier workflow nodes' outputs for the task's environment (see TaskExecutor.inputsEnv). */
  inputsEnv(name: string): Record<string, string>;
}

/** A run of a built-in script app (bash, python, powershell, pulumi) or a custom app: one process in the checkout. */
export async function runScript(
  io: ScriptIo,
  ctx: RunContext,
  app: ExecutableApp,
  repoDir: string,
  env: Record<string, string>,
): Promise<void> {
  const id = app.id;
  // Built-in script apps and custom apps: the app's own arguments, then the script and its arguments.
  const vars = { ...ctx.trustedVars, ...ctx.untrustedVars };
  // Variables as environment variables keep to the same name rules, so none replaces PATH, HOME or GANTRY_*.
  const scriptEnv = {
    ...env,
    ...scalarEnv(ctx.trustedVars, ctx.untrustedVars),
    GANTRY_EXTRA_VARS: JSON.stringify(vars),
    ...io.inputsEnv(WORKFLOW_INPUTS_ENV),
  };
  const cwd = id === 'pulumi' ? inside(repoDir, ctx.template.playbook || '.') : repoDir;
  const script = id === 'pulumi' ? '' : inside(repoDir, ctx.template.playbook);
  const argv =
    id === 'bash' || id === 'python' || id === 'powershell' || id === 'pulumi'
      ? scriptArgv(id, script, ctx.args)
      : [script, ...ctx.args];
  await io.exec(app.path, [...app.args, ...argv], cwd, scriptEnv);
}
