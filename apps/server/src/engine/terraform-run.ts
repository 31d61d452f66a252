import fs from 'node:fs';
import path from 'node:path';
import { planCounts, WORKFLOW_INPUTS_VAR, type PlanSummary } from '@gantry/contracts';
import { BACKEND_OVERRIDE, BACKEND_OVERRIDE_FILE, terraformSteps } from './apps/terraform.js';
import { startBackendRelay } from './backend-relay.js';
import type { ExecOptions, ExecutionHost, ExecutorDeps } from './executor-types.js';
import type { RunContext } from './run-context.js';
import { Rejected, Stopped } from './run-errors.js';
import { realDirInside, safeWriteFile } from './safe-fs.js';
import { summarizePlan } from './terraform-plan-summary.js';
import { policyVerdict } from './terraform-policy-tools.js';
import type { Workspace } from './workspace.js';

/** The port a task's Terraform backend relay listens on, inside the task's own network namespace. */
const RELAY_PORT = 47_680;

/** The most `terraform show -json` (or a policy tool) may print for the engine to read it. */
export const CAPTURE_MAX_CHARS = 32 * 1024 * 1024;

/** Why a confirmed plan was not applied: the state moved since it was made. */
export const STALE_PLAN =
  'The state changed since this plan was made (another run applied to it): the saved plan was not applied and nothing was changed; run the template again for a fresh plan';

/**
 * What a Terraform/OpenTofu run needs of the executor running it. Narrow on purpose: the run's
 * processes, stop requests and confirmation stay the executor's, so every app runs them alike.
 */
export interface TerraformIo {
  deps: Pick<ExecutorDeps, 'terraformState' | 'systemPath' | 'sandbox' | 'serverUrl' | 'workRoot'>;
  host: Pick<ExecutionHost, 'log' | 'onWaitingConfirmation' | 'onTerraformState' | 'onPlanSummary' | 'onDrift'>;
  /** Runs one sandboxed process to its end (see TaskExecutor.exec); answers its exit code. */
  exec(command: string, args: string[], cwd: string, env: Record<string, string>, o?: ExecOptions): Promise<number>;
  /** Gantry's own line in the task's log. */
  note(line: string): void;
  /** Moves the task on; a stop that came first throws Stopped. */
  setStatus(from: string[], to: string): Promise<boolean>;
  /** The console's answer to the plan; 'stop' at once when a stop came first. */
  confirmation(): Promise<'confirm' | 'reject' | 'stop'>;
  /** Removed when the run ends, whatever its outcome. */
  addCleanup(cleanup: () => void | Promise<void>): void;
  /** Carries a socket into the task's own network for its later processes. */
  setForward(forward: { socket: string; port: number }): void;
  /** Earlier workflow nodes' outputs for the task's environment (see TaskExecutor.inputsEnv). */
  inputsEnv(name: string): Record<string, string>;
}

/**
 * A terraform/tofu run: init, workspace, plan (summarised, checked against the template's
 * policy), confirmation, then the saved plan applied while the state it was made on holds.
 * A drift check stops after its plan. Local-backend state is kept in Gantry between runs.
 */
export async function runTerraform(
  io: TerraformIo,
  ctx: RunContext,
  ws: Workspace,
  repoDir: string,
  env: Record<string, string>,
  exe: string,
): Promise<void> {
  // The server writes and reads files here: a real folder of the checkout, resolved before any
  // task process ran; safe-fs checks it still is one at every later access.
  const cwd = realDirInside(repoDir, ctx.template.playbook || '.');
  const tfEnv = {
    ...env,
    TF_IN_AUTOMATION: '1',
    TF_INPUT: '0',
    ...Object.fromEntries(
      Object.entries({ ...ctx.trustedVars, ...ctx.untrustedVars }).map(([k, v]) => [
        `TF_VAR_${k}`,
        typeof v === 'string' ? v : JSON.stringify(v),
      ]),
    ),
    ...io.inputsEnv(`TF_VAR_${WORKFLOW_INPUTS_VAR}`),
  };
  const p = ctx.params;
  // The workspace keeps its state in Gantry: an override file points any backend at it, the
  // one-time credentials go by environment (never on the command line).
  const backend = ctx.terraformBackend ?? null;
  let backendAddress: string | null = null;
  if (backend) {
    const server = io.deps.serverUrl?.();
    if (!server)
      throw new Error("The workspace keeps its state in Gantry, but this run does not know the server's address");
    backendAddress = `${server.replace(/\/+$/, '')}${backend.path}`;
    if (io.deps.sandbox.isolatesNetwork) {
      // The task's own network reaches no port of this host: its backend comes through a
      // socket only its sandbox shows, on 127.0.0.1 of its own network.
      const relay = await startBackendRelay(
        path.join(io.deps.workRoot, '.relay'),
        `task_${ctx.task.id}`,
        server,
        backend.path,
      );
      io.addCleanup(() => void relay.close());
      io.setForward({ socket: relay.socket, port: RELAY_PORT });
      backendAddress = `http://127.0.0.1:${RELAY_PORT}${backend.path}`;
    }
    // A committed file of that name (or a link there) is replaced, never written through.
    safeWriteFile(cwd, BACKEND_OVERRIDE_FILE, BACKEND_OVERRIDE, { mode: 0o600, owner: ws.owner });
    Object.assign(tfEnv, { TF_HTTP_USERNAME: backend.username, TF_HTTP_PASSWORD: backend.password });
    io.host.log("State: Gantry's HTTP state backend (the workspace's lock is held until this task ends)");
  }
  // A drift check plans only (never -destroy) and reads the answer from the exit code.
  const drift = p.drift_check ?? null;
  const planFile = ws.path('gantry.tfplan');
  const steps = terraformSteps({
    workspace: ctx.inventory && ctx.inventory.type.endsWith('-workspace') ? ctx.inventory.inventory : null,
    destroy: !drift && !!p.destroy && ctx.templateParams.allow_destroy,
    detailedExitCode: !!drift,
    refreshOnly: !!drift?.refresh_only,
    upgrade: !!p.upgrade,
    reconfigure: !!p.reconfigure,
    planFile,
    args: ctx.args,
    backendAddress,
  });
  const state = io.deps.terraformState;
  if (!backend) for (const n of state.restore(ctx.template.id, cwd, ws.owner)) io.note(n);
  // The local state this plan is made on: it is applied only while no other run saved another.
  const fingerprint = backend ? null : (state.fingerprint?.(ctx.template.id) ?? null);
  await io.exec(exe, steps.init, cwd, tfEnv);
  if (steps.workspace) await io.exec(exe, steps.workspace, cwd, tfEnv);
  const stateFile = workspaceStateFile(steps.workspace ? ctx.inventory!.inventory : null);
  const before = state.readState(cwd, stateFile).state;
  const planned = await io.exec(exe, steps.plan, cwd, tfEnv, { ok: drift ? [0, 2] : [0] });
  const { summary, json } = await planSummary(io, exe, steps.show, cwd, tfEnv, !!drift?.refresh_only);
  if (drift) {
    const drifted = planned === 2;
    const outputs = summary?.output_changes.length ? `; outputs: ${summary.output_changes.join(', ')}` : '';
    io.note(
      drifted
        ? `Drift check: drifted (${summary ? planCounts(summary) : 'no summary'}${outputs})`
        : 'Drift check: no drift',
    );
    await io.host.onDrift?.({ drifted, summary, refreshOnly: !!drift.refresh_only });
    return;
  }
  const policy = ctx.templateParams.policy ?? null;
  if (summary) {
    summary.policy = await policyVerdict(summary, policy, {
      showJson: json!,
      repoDir,
      systemPath: io.deps.systemPath,
      writePlanJson: (json) => ws.writeSecretFile('gantry-plan.json', json),
      run: (command, args) => captured(io, command, args, cwd, tfEnv),
    });
    for (const r of summary.policy?.reasons ?? []) io.note(`Policy: ${r.message}`);
    await io.host.onPlanSummary?.(summary);
    if (summary.policy && !summary.policy.passed) {
      fs.rmSync(planFile, { force: true });
      throw new Rejected("The plan breaks the template's policy");
    }
  } else if (policy) {
    fs.rmSync(planFile, { force: true });
    throw new Error(
      "The plan could not be summarised, so the template's policy could not be checked: nothing was applied",
    );
  }
  if (p.plan) return;
  // A policy that names who confirms makes the plan wait, auto-approve or not.
  const autoApprove =
    (ctx.templateParams.auto_approve || (!!p.auto_approve && ctx.templateParams.allow_auto_approve)) &&
    !summary?.policy?.confirm_role;
  if (!autoApprove) {
    if (await io.setStatus(['running'], 'waiting_confirmation')) io.host.onWaitingConfirmation?.();
    const answer = await io.confirmation();
    if (answer === 'reject') {
      fs.rmSync(planFile, { force: true });
      throw new Rejected();
    }
    if (answer === 'stop') throw new Stopped();
    await io.setStatus(['confirmed', 'waiting_confirmation'], 'running');
  }
  if (fingerprint !== null && state.fingerprint!(ctx.template.id) !== fingerprint) {
    fs.rmSync(planFile, { force: true });
    throw new Error(STALE_PLAN);
  }
  // The HTTP backend's terraform refuses a stale plan itself; its words are less clear.
  let stale = false;
  try {
    await io.exec(exe, steps.apply, cwd, tfEnv, { watch: (l) => (stale ||= l.includes('Saved plan is stale')) });
  } catch (e) {
    if (stale && !(e instanceof Stopped)) throw new Error(STALE_PLAN);
    throw e;
  } finally {
    // With the backend on, terraform itself stored every version (as this task) while it ran.
    if (!backend) saveLocalState(io, ctx.template.id, cwd, stateFile, before);
  }
}

/**
 * Even a failed apply may have changed real resources: keep what it recorded. Only a regular
 * file that parses as a state is kept or recorded; the log says why anything else is not.
 */
function saveLocalState(
  io: TerraformIo,
  templateId: number,
  cwd: string,
  stateFile: string,
  before: string | null,
): void {
  try {
    for (const n of io.deps.terraformState.save(templateId, cwd)) io.note(n);
    const after = io.deps.terraformState.readState(cwd, stateFile);
    if (after.problem) io.note(`State not recorded: ${after.problem}`);
    else if (after.state !== null && after.state !== before) io.host.onTerraformState?.(after.state);
  } catch (e) {
    // Called from a finally: the apply's own error, if any, is the one the task ends with.
    io.note(`State not saved: ${(e as Error).message}`);
  }
}

/**
 * The saved plan as a summary (from `show -json`, read, not logged), with its counts noted in
 * the log; null (and why, in the log) when it could not be made.
 */
async function planSummary(
  io: TerraformIo,
  exe: string,
  show: string[],
  cwd: string,
  env: Record<string, string>,
  refreshOnly: boolean,
): Promise<{ summary: PlanSummary | null; json: string | null }> {
  const r = await captured(io, exe, show, cwd, env);
  let summary: PlanSummary | null = null;
  let why: string | null = null;
  if (r.stdout === null) why = `${path.basename(exe)} show printed more than ${CAPTURE_MAX_CHARS} characters`;
  else if (r.code !== 0) why = `${path.basename(exe)} show exited with ${r.code}`;
  else
    try {
      summary = summarizePlan(r.stdout, refreshOnly);
    } catch (e) {
      why = `its JSON could not be read (${(e as Error).message})`;
    }
  io.note(summary ? `Plan: ${planCounts(summary)}` : `The plan summary was not made: ${why}`);
  return { summary, json: summary ? r.stdout : null };
}

/** Runs a sandboxed process whose stdout the engine reads (null past CAPTURE_MAX_CHARS); any exit code. */
async function captured(
  io: TerraformIo,
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string | null }> {
  const chunks: string[] = [];
  let size = 0;
  const code = await io.exec(command, args, cwd, env, {
    ok: 'any',
    capture: (c) => {
      size += c.length;
      if (size <= CAPTURE_MAX_CHARS) chunks.push(c);
    },
  });
  return { code, stdout: size <= CAPTURE_MAX_CHARS ? chunks.join('') : null };
}

/** Where the local backend keeps a workspace's state (relative to its folder); the default workspace's is at the top. */
function workspaceStateFile(workspace: string | null): string {
  if (!workspace || workspace === 'default') return 'terraform.tfstate';
  return path.join('terraform.tfstate.d', workspace, 'terraform.tfstate');
}
