import path from 'node:path';
import { TASK_OUTPUT_ENV } from '@gantry/contracts';
import type { RunContext } from './run-context.js';
import { taskDetailsEnv } from './task-details.js';
import { OUTPUT_FILE } from './task-outputs.js';
import type { Workspace } from './workspace.js';

/**
 * The environment every process of a run starts from: what users gave the run (`userEnv`, from
 * userEnvironment, already checked), then the engine's own variables.
 */
export function runEnvironment(
  ctx: RunContext,
  ws: Workspace,
  userEnv: Record<string, string>,
  systemPath: string,
): Record<string, string> {
  // The engine's own variables come last: user names were checked, and these win regardless.
  const env: Record<string, string> = {
    LANG: 'C.UTF-8',
    ...userEnv,
    PATH: systemPath,
    HOME: ws.home,
    ...taskDetailsEnv(ctx.taskDetails),
    GANTRY_TASK_ID: String(ctx.task.id),
    GANTRY_PROJECT_ID: String(ctx.task.project_id),
    GANTRY_TEMPLATE_ID: String(ctx.task.template_id),
    // Where the task may leave its output object (its own workspace, the one place it may write).
    [TASK_OUTPUT_ENV]: path.join(ws.dir, OUTPUT_FILE),
  };
  return env;
}
