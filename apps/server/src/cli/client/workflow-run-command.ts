import { parseArgs } from 'node:util';
import { WORKFLOW_RUN_FINISHED, type WorkflowRun, type WorkflowRunNode } from '@gantry/contracts';
import type { ApiClient } from './api-client.js';
import { findProject, findWorkflow, splitTarget } from './lookup.js';
import { colour, parseOutputFormat, printJson } from './output.js';
import { EXIT_FAILED, EXIT_STOPPED, EXIT_SUCCESS } from './run-command.js';

export const WORKFLOW_RUN_OPTIONS = {
  follow: { type: 'boolean' },
  output: { type: 'string' },
  profile: { type: 'string' },
} as const;

/** How often a followed run is read: runs have no live channel, and a node's step takes seconds at least. */
const POLL_MS = 1_000;

/**
 * `gantry workflows run <project>/<workflow>`: starts a run and prints its number and address;
 * with --follow, prints each node's changes (status, tries, tasks) until the run ends and exits
 * as `gantry run --follow` does: 0 success, 1 failed (a rejected approval fails its run), 2 stopped.
 */
export async function workflowRunCommand(args: string[], connect: (profile?: string) => ApiClient): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: WORKFLOW_RUN_OPTIONS, allowPositionals: true });
  const format = parseOutputFormat(values.output);
  const [projectRef, workflowRef] = splitTarget(
    positionals,
    'Usage: gantry workflows run <project>/<workflow> [--follow]',
  );
  const client = connect(values.profile);
  const project = await findProject(client, projectRef);
  const workflow = await findWorkflow(client, project.id, workflowRef);

  const runsUrl = `/project/${project.id}/workflows/${workflow.id}/runs`;
  const started = await client.request<WorkflowRun>('POST', runsUrl);
  const url = `${client.base}/project/${project.id}/workflows/${workflow.id}/runs/${started.id}`;
  if (format === 'json') printJson(started);
  else process.stdout.write(`Workflow run #${started.id} of ${project.name}/${workflow.name} started: ${url}\n`);
  if (!values.follow) return EXIT_SUCCESS;

  // With JSON on stdout, the progress goes to stderr so stdout stays one parseable document per object.
  const progress = format === 'json' ? process.stderr : process.stdout;
  const seen = new Map<string, string>();
  let run = started;
  for (;;) {
    for (const node of run.nodes) {
      const line = nodeLine(node);
      if (seen.get(node.id) !== line) progress.write(`${line}\n`);
      seen.set(node.id, line);
    }
    if (WORKFLOW_RUN_FINISHED.includes(run.status)) break;
    await new Promise((r) => setTimeout(r, POLL_MS));
    run = await client.get<WorkflowRun>(`${runsUrl}/${started.id}`);
  }
  const code = run.status === 'success' ? EXIT_SUCCESS : run.status === 'failed' ? EXIT_FAILED : EXIT_STOPPED;
  if (format === 'json') printJson(run);
  else {
    const tint = code === EXIT_SUCCESS ? 'green' : code === EXIT_FAILED ? 'red' : 'yellow';
    process.stdout.write(`${colour(tint, `Workflow run #${run.id} ended: ${run.status}`)}\n`);
  }
  return code;
}

/** One node's state as a line: printed again only when something in it changed. */
function nodeLine(n: WorkflowRunNode): string {
  const parts = [n.id, n.status, `attempts ${n.attempts}`];
  if (n.task_ids.length) parts.push(`tasks ${n.task_ids.map((id) => `#${id}`).join(',')}`);
  if (n.next_try_at) parts.push(`next try ${n.next_try_at}`);
  if (n.error) parts.push(`error: ${n.error}`);
  return parts.join('  ');
}
