import fs from 'node:fs';
import path from 'node:path';
import {
  ErrorCodes,
  evaluatePolicy,
  type PlanSummary,
  type PolicyVerdict,
  type TerraformPolicy,
} from '@gantry/contracts';
import { realDirInside } from './safe-fs.js';

export type PolicyReason = PolicyVerdict['reasons'][number];

/** A Rego policy runner found on the server's PATH. */
export interface PolicyTool {
  kind: 'conftest' | 'opa';
  path: string;
}

/** The first `conftest`, else the first `opa`, on `searchPath` (a PATH value; no shell is asked). */
export function findPolicyTool(searchPath: string): PolicyTool | null {
  for (const kind of ['conftest', 'opa'] as const) {
    for (const dir of searchPath.split(path.delimiter)) {
      if (!dir || !path.isAbsolute(dir)) continue;
      const file = path.join(dir, kind);
      try {
        if (fs.statSync(file).isFile()) {
          fs.accessSync(file, fs.constants.X_OK);
          return { kind, path: file };
        }
      } catch {
        // Not here.
      }
    }
  }
  return null;
}

/** The arguments that evaluate the Rego folder `policyDir` on `planJson` (a `show -json` file). */
export function policyArgv(tool: PolicyTool, policyDir: string, planJson: string): string[] {
  return tool.kind === 'conftest'
    ? ['test', '--no-color', '--output', 'json', '--policy', policyDir, '--', planJson]
    : ['eval', '--format', 'json', '--data', policyDir, '--input', planJson, 'data.terraform.deny'];
}

/** Exit codes that still leave a readable answer: conftest exits 1 when a rule failed. */
export function policyOkCodes(tool: PolicyTool): number[] {
  return tool.kind === 'conftest' ? [0, 1] : [0];
}

/** The reason when a policy folder is set but neither tool is installed (the plan is refused: fail closed). */
export function missingToolReason(policyPath: string): PolicyReason {
  return {
    code: ErrorCodes.policyToolMissing,
    message: `The policy folder ${policyPath} is set but neither conftest nor opa is installed on this server`,
    params: { path: policyPath },
  };
}

const denied = (message: string): PolicyReason => ({
  code: ErrorCodes.policyDenied,
  message: message.length > 1000 ? `${message.slice(0, 1000)}…` : message,
  params: { message: message.slice(0, 1000) },
});

/** A Rego rule's answer as a message: a string, or an object's `msg`. */
function messageOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { msg?: unknown }).msg === 'string') return (v as { msg: string }).msg;
  return JSON.stringify(v);
}

/**
 * The failures in `conftest test --output json`: a list of results per file, each with
 * `failures` (and, from older versions, `denials`) of `{msg, metadata}`. Throws when it is not that.
 */
export function parseConftestOutput(text: string): PolicyReason[] {
  const results = JSON.parse(text) as unknown;
  if (!Array.isArray(results)) throw new Error('conftest did not answer a list of results');
  const reasons: PolicyReason[] = [];
  for (const r of results) {
    if (!r || typeof r !== 'object') continue;
    const { failures, denials } = r as { failures?: unknown; denials?: unknown };
    for (const list of [failures, denials])
      if (Array.isArray(list)) for (const f of list) reasons.push(denied(messageOf(f)));
  }
  return reasons;
}

/**
 * The messages of `opa eval --format json ... data.terraform.deny`: `{result: [{expressions:
 * [{value}]}]}` where the value is the deny set (strings, or objects with `msg`). No result: the
 * rule is not defined, nothing is denied. Throws when it is not that.
 */
export function parseOpaOutput(text: string): PolicyReason[] {
  const out = JSON.parse(text) as { result?: unknown };
  if (!out || typeof out !== 'object' || Array.isArray(out)) throw new Error('opa did not answer an object');
  if (out.result === undefined) return [];
  if (!Array.isArray(out.result)) throw new Error('opa answered no list of results');
  const reasons: PolicyReason[] = [];
  for (const r of out.result) {
    const expressions = (r as { expressions?: unknown })?.expressions;
    if (!Array.isArray(expressions)) continue;
    for (const e of expressions) {
      const value = (e as { value?: unknown })?.value;
      const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
      for (const v of items) reasons.push(denied(messageOf(v)));
    }
  }
  return reasons;
}

/** What a tool's run answered, as reasons; a failed run or unreadable answer is a reason too (fail closed). */
export function policyToolReasons(tool: PolicyTool, code: number, stdout: string): PolicyReason[] {
  if (!policyOkCodes(tool).includes(code))
    return [denied(`The policy check (${tool.kind}) failed: it exited with ${code}`)];
  try {
    const reasons = tool.kind === 'conftest' ? parseConftestOutput(stdout) : parseOpaOutput(stdout);
    if (code !== 0 && reasons.length === 0)
      return [denied(`The policy check (${tool.kind}) failed: it exited with ${code} and named no failure`)];
    return reasons;
  } catch (e) {
    return [denied(`The policy check (${tool.kind}) answered what Gantry cannot read: ${(e as Error).message}`)];
  }
}

export interface PolicyCheck {
  /** `show -json` of the plan: the input of the Rego policies. */
  showJson: string;
  /** The checkout: the policy folder must be one of its folders. */
  repoDir: string;
  /** Where conftest/opa are looked for. */
  systemPath: string;
  /** Writes the plan's JSON into the workspace (secret: it holds the plan's values); answers its path. */
  writePlanJson(json: string): string;
  /** Runs a process sandboxed, its stdout read (null when too large). */
  run(command: string, args: string[]): Promise<{ code: number; stdout: string | null }>;
}

/**
 * The template's policy on a plan: the built-in rules (evaluatePolicy), then the Rego folder's
 * (conftest, else opa) when one is set. Fails closed: a folder outside the checkout, no tool, a
 * failed or unreadable run are reasons too. Null when the template has no policy.
 */
export async function policyVerdict(
  summary: PlanSummary,
  policy: TerraformPolicy | null | undefined,
  c: PolicyCheck,
): Promise<PolicyVerdict | null> {
  const verdict = evaluatePolicy(summary, policy);
  if (!verdict || !policy?.policy_path) return verdict;
  const reasons = await regoReasons(policy.policy_path, c);
  verdict.reasons.push(...reasons);
  verdict.passed = verdict.reasons.length === 0;
  return verdict;
}

async function regoReasons(policyPath: string, c: PolicyCheck): Promise<PolicyReason[]> {
  let dir: string;
  try {
    dir = realDirInside(c.repoDir, policyPath);
  } catch (e) {
    return [denied(`The policy folder ${policyPath} cannot be used: ${(e as Error).message}`)];
  }
  const tool = findPolicyTool(c.systemPath);
  if (!tool) return [missingToolReason(policyPath)];
  const file = c.writePlanJson(c.showJson);
  try {
    const r = await c.run(tool.path, policyArgv(tool, dir, file));
    if (r.stdout === null) return [denied(`The policy check (${tool.kind}) printed more than Gantry reads`)];
    return policyToolReasons(tool, r.code, r.stdout);
  } finally {
    fs.rmSync(file, { force: true });
  }
}
