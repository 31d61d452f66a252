export interface TerraformRun {
  workspace: string | null;
  destroy: boolean;
  upgrade: boolean;
  reconfigure: boolean;
  planFile: string;
  /** Template then task arguments, given to plan. */
  args: string[];
}

/** The commands of a terraform/tofu run: init, workspace, plan; apply runs the saved plan. */
export function terraformSteps(r: TerraformRun): { init: string[]; workspace: string[] | null; plan: string[]; apply: string[] } {
  const init = ['init', '-input=false'];
  if (r.upgrade) init.push('-upgrade');
  if (r.reconfigure) init.push('-reconfigure');
  return {
    init,
    workspace: r.workspace ? ['workspace', 'select', '-or-create', '--', r.workspace] : null,
    plan: ['plan', '-input=false', `-out=${r.planFile}`, ...(r.destroy ? ['-destroy'] : []), ...r.args],
    apply: ['apply', '-input=false', '-auto-approve', r.planFile],
  };
}
