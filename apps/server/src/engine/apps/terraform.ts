export interface TerraformRun {
  workspace: string | null;
  destroy: boolean;
  upgrade: boolean;
  reconfigure: boolean;
  planFile: string;
  /** Template then task arguments, given to plan. */
  args: string[];
  /** Gantry's HTTP state backend address for this run (credentials go by environment), or null. */
  backendAddress?: string | null;
  /** A drift check: plan exits 2 when there are changes, 0 when none (never with `destroy`). */
  detailedExitCode?: boolean;
  /** A drift check of what changed outside Terraform only (`-refresh-only`). */
  refreshOnly?: boolean;
}

/** Written into the run's configuration when the backend is on: it replaces whatever backend the repository declares. */
export const BACKEND_OVERRIDE_FILE = 'zz_gantry_backend_override.tf';
export const BACKEND_OVERRIDE = 'terraform {\n  backend "http" {}\n}\n';

/** The commands of a terraform/tofu run: init, workspace, plan; apply runs the saved plan. */
export function terraformSteps(r: TerraformRun): {
  init: string[];
  workspace: string[] | null;
  plan: string[];
  show: string[];
  apply: string[];
} {
  const init = ['init', '-input=false'];
  if (r.upgrade) init.push('-upgrade');
  if (r.reconfigure || r.backendAddress) init.push('-reconfigure');
  if (r.backendAddress) {
    const a = r.backendAddress;
    init.push(
      `-backend-config=address=${a}`,
      `-backend-config=lock_address=${a}`,
      `-backend-config=unlock_address=${a}`,
      '-backend-config=lock_method=LOCK',
      '-backend-config=unlock_method=UNLOCK',
    );
  }
  return {
    init,
    // The HTTP backend has one state per address: the Gantry workspace is that state.
    workspace: r.workspace && !r.backendAddress ? ['workspace', 'select', '-or-create', '--', r.workspace] : null,
    plan: [
      'plan',
      '-input=false',
      `-out=${r.planFile}`,
      ...(r.detailedExitCode ? ['-detailed-exitcode'] : []),
      ...(r.refreshOnly ? ['-refresh-only'] : []),
      ...(r.destroy && !r.detailedExitCode ? ['-destroy'] : []),
      ...r.args,
    ],
    /** Reads the saved plan as JSON (the summary, the policy's input). */
    show: ['show', '-json', '--', r.planFile],
    apply: ['apply', '-input=false', '-auto-approve', r.planFile],
  };
}
