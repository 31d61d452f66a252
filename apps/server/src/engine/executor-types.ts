import type { App, PlanSummary } from '@gantry/contracts';
import type { CheckoutCache } from './checkout-cache.js';
import type { OutputFlow } from './log-sink.js';
import type { ProcessLauncher } from './process.js';
import type { TaskSandbox } from './sandbox.js';
import type { TaskIdentity } from './task-user.js';
import type { WorkspaceState } from './terraform-state.js';

/** What the executor needs of the machine it runs on (the server, or a remote runner). */
export interface ExecutorDeps {
  launcher: ProcessLauncher;
  workRoot: string;
  knownHostsDir: string;
  /** Checkouts kept for runs of repositories whose refs have not moved (none: every run clones). */
  checkoutCache?: CheckoutCache;
  /** Local-backend state kept between runs; `workDir` is a real folder path. Notes are for the task's log. */
  terraformState: {
    restore(templateId: number, workDir: string, owner?: TaskIdentity | null): string[];
    save(templateId: number, workDir: string): string[];
    readState(workDir: string, rel: string): WorkspaceState;
    /** A hash of the template's kept state ('' when none): a saved plan is applied only while it holds. */
    fingerprint?(templateId: number): string;
  };
  systemPath: string;
  /**
   * The sandbox the launcher applies; an unsandboxed run says so on its first log line. Its task
   * user owns the workspace; with its own network, the Terraform backend is relayed to the task.
   */
  sandbox: Pick<TaskSandbox, 'warning'> & Partial<Pick<TaskSandbox, 'taskOwner' | 'isolatesNetwork' | 'active'>>;
  /** How this machine's task processes reach the Gantry server (for its Terraform HTTP state backend). */
  serverUrl?: () => string | null;
}

/** Where a run reports to: the database and bus (local) or the server over HTTP (remote runner). */
export interface ExecutionHost {
  log(line: string): void;
  /** Gantry's own line (kept past the log's line cap); `log` when absent. */
  note?(line: string): void;
  /** Pauses the processes' output while the log cannot keep up. */
  flow?: OutputFlow;
  /** Moves the task from one of `from` to `to` once the log so far is stored; answers whether it moved. */
  setStatus(from: string[], to: string): Promise<boolean>;
  commit(hash: string, message: string): Promise<void>;
  /** The task now waits for confirmation (notifications); must not throw. */
  onWaitingConfirmation?(): void;
  /** A repository file inventory was read (error null) or could not be (why); must not throw. */
  onInventoryRead?(inventoryId: number, error: string | null): void;
  /** A terraform/tofu apply changed the selected workspace's state (its JSON text); must not throw. */
  onTerraformState?(state: string): void;
  /**
   * A terraform/tofu plan was summarised from `show -json` (with the template's policy verdict in
   * `summary.policy`). Stored before confirmation is offered, so whoever sees the task waiting sees
   * its plan; must not throw.
   */
  onPlanSummary?(summary: PlanSummary): Promise<void>;
  /** A drift check (`params.drift_check`) ended its plan: what it found; must not throw. */
  onDrift?(result: DriftResult): Promise<void>;
}

/** What a drift check found: `drifted` when `plan -detailed-exitcode` exited 2. */
export interface DriftResult {
  drifted: boolean;
  /** The plan's changes (null when the summary could not be made). */
  summary: PlanSummary | null;
  refreshOnly: boolean;
}

/** The app settings a run uses (from the apps service, or from the job package on a runner). */
export type ExecutableApp = Pick<App, 'id' | 'title' | 'path' | 'args'>;

export type ControlAction = 'confirm' | 'reject' | 'stop' | 'kill';

export interface ExecOptions {
  /** Exit codes that are not a failure (default: 0 only); 'any': the caller reads the code. */
  ok?: readonly number[] | 'any';
  /** Stdout unsplit, kept from the log (stderr is still logged). */
  capture?: (chunk: string) => void;
  /** Sees every logged line first. */
  watch?: (line: string) => void;
}
