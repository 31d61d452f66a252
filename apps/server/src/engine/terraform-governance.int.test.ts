import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ErrorCodes,
  taskParamsSchema,
  templateTaskParamsSchema,
  type PlanSummary,
  type TaskParams,
  type TemplateTaskParams,
} from '@gantry/contracts';
import { gitRepo } from '../test/git-fixture.js';
import { TaskExecutor, type DriftResult, type ExecutorDeps, type ExecutionHost } from './executor.js';
import { createProcessLauncher } from './process.js';
import type { RunContext } from './run-context.js';
import { TaskSandbox } from './sandbox.js';
import { STALE_PLAN } from './terraform-run.js';
import { TerraformStateStore } from './terraform-state.js';

const TERRAFORM = '/usr/local/bin/terraform';

const MAIN_TF = `
variable "greeting" {
  type    = string
  default = "one"
}
variable "gen" {
  type    = number
  default = 1
}
variable "n" {
  type    = number
  default = 2
}
variable "extra" {
  type    = bool
  default = false
}
variable "secret" {
  type      = string
  sensitive = true
  default   = "s3cret-initial"
}
resource "terraform_data" "keep" {
  input = { env = var.greeting }
}
resource "terraform_data" "many" {
  count = var.n
  input = count.index
}
resource "terraform_data" "rebuilt" {
  input            = "x"
  triggers_replace = [var.gen]
}
resource "terraform_data" "secret" {
  input = var.secret
}
resource "terraform_data" "extra" {
  count = var.extra ? 1 : 0
  input = "new"
}
output "greeting" {
  value = var.greeting
}
`;

/** The variables that turn the first state into 1 add, 2 changes, 1 replace, 1 destroy. */
const CHANGED = { greeting: 'two', gen: 2, n: 1, extra: true, secret: 's3cret-changed' };

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-governance-'));
// A PATH where `tofu` is terraform, as OpenTofu is driven the same way.
const binDir = path.join(root, 'bin');
fs.mkdirSync(binDir);
fs.symlinkSync(TERRAFORM, path.join(binDir, 'tofu'));
const systemPath = `${binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`;
const dataDir = path.join(root, 'data');
const workRoot = path.join(root, 'work');
const store = new TerraformStateStore(path.join(dataDir, 'terraform'));
function depsWith(searchPath: string): ExecutorDeps {
  const sandbox = new TaskSandbox({ requested: 'auto', hide: [dataDir, workRoot], systemPath: searchPath });
  return {
    launcher: createProcessLauncher(sandbox),
    workRoot,
    knownHostsDir: path.join(dataDir, 'known_hosts'),
    terraformState: store,
    systemPath: searchPath,
    sandbox,
  };
}
const deps = depsWith(systemPath);

// A stand-in for conftest (none is installed here): run sandboxed like the real one, it answers
// as `conftest test --output json` does, failing when the plan it was given changes terraform_data.keep.
const toolDir = path.join(root, 'tools');
fs.mkdirSync(toolDir);
fs.writeFileSync(
  path.join(toolDir, 'conftest'),
  `#!/bin/sh
[ "$1" = test ] && [ "$5" = --policy ] && [ -f "$6/deny.rego" ] && [ "$7" = -- ] || { echo "bad argv: $*" >&2; exit 3; }
if grep -q '"address":"terraform_data.keep","mode":"managed","type":"terraform_data","name":"keep","provider_name":"terraform.io/builtin/terraform","change":{"actions":\\["update"\\]' "$8"; then
  echo '[{"filename":"plan.json","namespace":"main","successes":0,"failures":[{"msg":"keep may not change"}]}]'
  exit 1
fi
echo '[{"filename":"plan.json","namespace":"main","successes":1,"failures":[]}]'
`,
  { mode: 0o755 },
);

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

let nextTask = 1;
let nextTemplate = 1;

interface Run {
  executor: TaskExecutor;
  lines: string[];
  summaries: PlanSummary[];
  drifts: DriftResult[];
  status: () => string;
  /** Resolves once the run waits for confirmation. */
  waiting: Promise<void>;
  done: Promise<string>;
}

function start(o: {
  deps?: ExecutorDeps;
  repo: string;
  templateId: number;
  app?: 'terraform' | 'tofu';
  vars?: Record<string, unknown>;
  params?: Partial<TaskParams>;
  templateParams?: Record<string, unknown> & Partial<Pick<TemplateTaskParams, 'auto_approve' | 'allow_destroy'>>;
}): Run {
  const lines: string[] = [];
  const summaries: PlanSummary[] = [];
  const drifts: DriftResult[] = [];
  let status = 'running';
  let onWaiting!: () => void;
  const waiting = new Promise<void>((resolve) => (onWaiting = resolve));
  const host: ExecutionHost = {
    log: (l) => lines.push(l),
    note: (l) => lines.push(l),
    setStatus: async (from, to) => {
      if (!from.includes(status)) return false;
      status = to;
      return true;
    },
    commit: async () => undefined,
    onWaitingConfirmation: () => onWaiting(),
    onPlanSummary: async (s) => {
      summaries.push(structuredClone(s));
    },
    onDrift: async (d) => {
      drifts.push(structuredClone(d));
    },
  };
  const app = o.app ?? 'terraform';
  const ctx: RunContext = {
    task: { id: nextTask++, project_id: 1, template_id: o.templateId, commit_hash: null },
    template: { id: o.templateId, app, playbook: '' },
    params: taskParamsSchema.parse(o.params ?? {}),
    templateParams: templateTaskParamsSchema.parse(o.templateParams ?? {}),
    repository: { row: { git_url: o.repo, git_branch: 'main' }, key: null },
    inventory: null,
    inventoryRepository: null,
    inventoryKey: null,
    becomeKey: null,
    vaults: [],
    trustedVars: {},
    untrustedVars: o.vars ?? {},
    groupEnv: {},
    taskEnv: {},
    args: [],
    branch: 'main',
    secrets: [],
  };
  const executor = new TaskExecutor(o.deps ?? deps, host);
  const done = executor
    .execute(ctx, { id: app, title: app, path: app, args: [] })
    .then(
      () => 'success',
      (e: unknown) => executor.outcome(e),
    )
    .finally(() => executor.cleanup());
  return { executor, lines, summaries, drifts, status: () => status, waiting, done };
}

/** A template whose first run applied the default variables. */
async function applied(app: 'terraform' | 'tofu' = 'terraform', files: Record<string, string> = {}) {
  const repo = gitRepo({ 'main.tf': MAIN_TF, ...files });
  const templateId = nextTemplate++;
  const first = start({ repo, templateId, app, templateParams: { auto_approve: true } });
  expect(await first.done, first.lines.join('\n')).toBe('success');
  expect(first.lines, first.lines.join('\n')).toContain('Plan: 5 to add, 0 to change, 0 to replace, 0 to destroy');
  return { repo, templateId };
}

describe('terraform governance (engine, real terraform)', () => {
  it('has terraform on this machine', () => {
    expect(fs.existsSync(TERRAFORM)).toBe(true);
  });

  for (const app of ['terraform', 'tofu'] as const) {
    it(`${app}: summarises the plan before it waits; sensitive values never appear; reject keeps the state`, async () => {
      const { repo, templateId } = await applied(app);
      const before = store.fingerprint(templateId);
      expect(before).toMatch(/^[0-9a-f]{64}$/);
      const run = start({ repo, templateId, app, vars: CHANGED });
      await run.waiting;
      expect(run.status()).toBe('waiting_confirmation');
      expect(run.lines).toContain('Plan: 1 to add, 2 to change, 1 to replace, 1 to destroy');
      expect(run.summaries).toHaveLength(1);
      const s = run.summaries[0]!;
      expect(s).toMatchObject({
        create: 1,
        update: 2,
        replace: 1,
        destroy: 1,
        policy: null,
        output_changes: ['greeting'],
      });
      expect(s.resources.map((r) => `${r.action} ${r.address}`).sort()).toEqual([
        'create terraform_data.extra[0]',
        'destroy terraform_data.many[1]',
        'replace terraform_data.rebuilt',
        'update terraform_data.keep',
        'update terraform_data.secret',
      ]);
      expect(s.resources.find((r) => r.address === 'terraform_data.keep')!.changes).toContainEqual({
        path: 'input.env',
        before: 'one',
        after: 'two',
      });
      expect(JSON.stringify(s)).not.toContain('s3cret');
      run.executor.control('reject');
      expect(await run.done).toBe('rejected');
      expect(store.fingerprint(templateId)).toBe(before);
    });
  }

  it('refuses a confirmed plan whose local state another run changed meanwhile', async () => {
    const { repo, templateId } = await applied();
    const a = start({ repo, templateId, vars: { greeting: 'from-a' } });
    await a.waiting;
    const b = start({ repo, templateId, vars: { greeting: 'from-b' }, templateParams: { auto_approve: true } });
    expect(await b.done, b.lines.join('\n')).toBe('success');
    const afterB = store.fingerprint(templateId);
    a.executor.control('confirm');
    expect(await a.done).toBe('error');
    expect(a.lines).toContain(`Error: ${STALE_PLAN}`);
    expect(a.lines.join('\n')).not.toMatch(/Apply complete/);
    expect(store.fingerprint(templateId)).toBe(afterB);
    // What B applied is what a fresh plan starts from.
    const check = start({ repo, templateId, vars: { greeting: 'from-b' }, params: { plan: true } });
    expect(await check.done).toBe('success');
    expect(check.lines).toContain('Plan: 0 to add, 0 to change, 0 to replace, 0 to destroy');
  });

  it('drift checks: exit code 2 is drift, 0 is none, nothing is applied; refresh-only sees outputs only', async () => {
    const { repo, templateId } = await applied();
    const fp = store.fingerprint(templateId);

    const clean = start({ repo, templateId, params: { drift_check: { refresh_only: false } } });
    expect(await clean.done, clean.lines.join('\n')).toBe('success');
    expect(clean.drifts).toEqual([
      { drifted: false, summary: expect.objectContaining({ create: 0, update: 0 }), refreshOnly: false },
    ]);
    expect(clean.lines).toContain('Drift check: no drift');
    expect(clean.summaries).toEqual([]);

    // Even with auto-approve and destroy asked for: a drift check plans only, never -destroy.
    const drifted = start({
      repo,
      templateId,
      vars: { greeting: 'two' },
      params: { drift_check: { refresh_only: false }, destroy: true },
      templateParams: { auto_approve: true, allow_destroy: true },
    });
    expect(await drifted.done, drifted.lines.join('\n')).toBe('success');
    expect(drifted.drifts).toHaveLength(1);
    expect(drifted.drifts[0]).toMatchObject({ drifted: true, refreshOnly: false, summary: { update: 1, destroy: 0 } });
    expect(drifted.lines).toContain(
      'Drift check: drifted (0 to add, 1 to change, 0 to replace, 0 to destroy; outputs: greeting)',
    );
    expect(drifted.lines.join('\n')).not.toMatch(/Apply complete/);
    expect(store.fingerprint(templateId)).toBe(fp);

    // Refresh-only ignores the configuration's resource changes; a changed output is still drift.
    const refreshClean = start({ repo, templateId, params: { drift_check: { refresh_only: true } } });
    expect(await refreshClean.done).toBe('success');
    expect(refreshClean.drifts).toMatchObject([{ drifted: false, refreshOnly: true }]);
    const refreshDrift = start({
      repo,
      templateId,
      vars: { greeting: 'three', gen: 5 },
      params: { drift_check: { refresh_only: true } },
    });
    expect(await refreshDrift.done, refreshDrift.lines.join('\n')).toBe('success');
    expect(refreshDrift.drifts).toMatchObject([
      {
        drifted: true,
        refreshOnly: true,
        summary: { refresh_only: true, update: 0, replace: 0, output_changes: ['greeting'] },
      },
    ]);

    // A plan that fails (exit 1) decides nothing.
    const failed = start({ repo, templateId, vars: { n: 'many' }, params: { drift_check: { refresh_only: false } } });
    expect(await failed.done).toBe('error');
    expect(failed.drifts).toEqual([]);
    expect(failed.lines).toContain('Error: terraform exited with 1');
  });

  it('rejects a plan that breaks the policy, before any confirmation, and says why', async () => {
    const { repo, templateId } = await applied();
    const fp = store.fingerprint(templateId);
    const run = start({
      repo,
      templateId,
      vars: CHANGED,
      templateParams: {
        auto_approve: true,
        policy: { max_destroys: 1, deny_destroy_types: ['terraform_*'], deny_create_types: [] },
      },
    });
    expect(await run.done).toBe('rejected');
    expect(run.lines).toContain('Policy: The plan destroys 2 resource(s); the policy allows at most 1');
    expect(run.lines.join('\n')).toMatch(/Policy: Resources of type terraform_\* may not be destroyed: /);
    expect(run.summaries).toHaveLength(1);
    expect(run.summaries[0]!.policy).toMatchObject({ passed: false, confirm_role: null });
    expect(run.summaries[0]!.policy!.reasons.map((r) => r.code)).toEqual([
      ErrorCodes.policyMaxDestroys,
      ErrorCodes.policyDenyDestroy,
    ]);
    expect(run.lines.join('\n')).not.toMatch(/Apply complete/);
    expect(store.fingerprint(templateId)).toBe(fp);

    const repo2 = gitRepo({ 'main.tf': MAIN_TF });
    const created = start({
      repo: repo2,
      templateId: nextTemplate++,
      templateParams: { auto_approve: true, policy: { deny_create_types: ['terraform_data'] } },
    });
    expect(await created.done).toBe('rejected');
    expect(created.summaries[0]!.policy!.reasons[0]).toMatchObject({ code: ErrorCodes.policyDenyCreate });
  });

  it('makes a plan wait for confirmation when the policy names who confirms, auto-approve or not', async () => {
    const { repo, templateId } = await applied();
    const run = start({
      repo,
      templateId,
      vars: { greeting: 'two' },
      templateParams: { auto_approve: true, policy: { changes_need_role: 'manager' } },
    });
    await run.waiting;
    expect(run.summaries[0]!.policy).toEqual({ passed: true, reasons: [], confirm_role: 'manager' });
    run.executor.control('confirm');
    expect(await run.done, run.lines.join('\n')).toBe('success');
    expect(run.lines.join('\n')).toMatch(/Apply complete! Resources: 0 added, 1 changed/);
  });

  it('runs the policy folder through conftest (sandboxed); fails closed without a tool or folder', async () => {
    const { repo, templateId } = await applied('terraform', { 'policy/deny.rego': 'package terraform\n' });
    const run = start({
      repo,
      templateId,
      vars: { greeting: 'two' },
      templateParams: { auto_approve: true, policy: { policy_path: 'policy' } },
    });
    expect(await run.done).toBe('rejected');
    expect(run.summaries[0]!.policy!.reasons).toEqual([
      {
        code: ErrorCodes.policyToolMissing,
        message: 'The policy folder policy is set but neither conftest nor opa is installed on this server',
        params: { path: 'policy' },
      },
    ]);
    expect(run.lines).toContain(
      'Policy: The policy folder policy is set but neither conftest nor opa is installed on this server',
    );

    const toolDeps = depsWith(`${toolDir}:${systemPath}`);
    const denied = start({
      deps: toolDeps,
      repo,
      templateId,
      vars: { greeting: 'two' },
      templateParams: { auto_approve: true, policy: { policy_path: 'policy' } },
    });
    expect(await denied.done, denied.lines.join('\n')).toBe('rejected');
    expect(denied.summaries[0]!.policy!.reasons).toEqual([
      { code: ErrorCodes.policyDenied, message: 'keep may not change', params: { message: 'keep may not change' } },
    ]);
    expect(denied.lines).toContain('Policy: keep may not change');
    const allowed = start({
      deps: toolDeps,
      repo,
      templateId,
      vars: { gen: 3 },
      templateParams: { auto_approve: true, policy: { policy_path: 'policy' } },
    });
    expect(await allowed.done, allowed.lines.join('\n')).toBe('success');
    expect(allowed.summaries[0]!.policy).toEqual({ passed: true, reasons: [], confirm_role: null });

    const missing = start({
      repo,
      templateId,
      templateParams: { auto_approve: true, policy: { policy_path: 'nowhere' } },
    });
    expect(await missing.done).toBe('rejected');
    expect(missing.summaries[0]!.policy!.reasons[0]!.message).toMatch(/The policy folder nowhere cannot be used/);
  });
});
