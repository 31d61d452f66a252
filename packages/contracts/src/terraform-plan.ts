import { z } from 'zod';
import { coded } from './coded.js';
import { ErrorCodes } from './errors.js';
import { PROJECT_ROLES } from './permissions.js';

/** What a plan does to one resource instance (no-op and read-only changes are left out). */
export const PLAN_ACTIONS = ['create', 'update', 'replace', 'destroy'] as const;
export const planActionSchema = z.enum(PLAN_ACTIONS);
export type PlanAction = z.infer<typeof planActionSchema>;

/** Shown instead of a value Terraform marks sensitive (as `terraform plan` prints it). */
export const PLAN_SENSITIVE = '(sensitive value)';
/** Shown instead of a value only the apply will know. */
export const PLAN_UNKNOWN = '(known after apply)';

/** Most resources a stored summary lists (the counts stay exact); most attribute changes per resource. */
export const PLAN_MAX_RESOURCES = 500;
export const PLAN_MAX_CHANGES = 100;

/** One changed attribute: a dotted path (`tags.env`, `ingress.0.port`) and its values as JSON (sensitive/unknown as the placeholders). */
export const planAttributeChangeSchema = z.object({
  path: z.string(),
  before: z.unknown(),
  after: z.unknown(),
});
export type PlanAttributeChange = z.infer<typeof planAttributeChangeSchema>;

export const planResourceSchema = z.object({
  address: z.string(),
  type: z.string(),
  action: planActionSchema,
  changes: z.array(planAttributeChangeSchema),
});
export type PlanResource = z.infer<typeof planResourceSchema>;

/** The outcome of the template's policy on a plan; `reasons` says what failed (English, with a code each). */
export const policyVerdictSchema = z.object({
  passed: z.boolean(),
  reasons: z.array(z.object({ code: z.string(), message: z.string(), params: z.record(z.string(), z.union([z.string(), z.number()])).default({}) })),
  /** Who may confirm this plan when the policy asks more than the usual permission; null: anyone who may run the template. */
  confirm_role: z.enum(PROJECT_ROLES).nullable(),
});
export type PolicyVerdict = z.infer<typeof policyVerdictSchema>;

/** A saved plan in numbers and per resource: what `terraform show -json <planfile>` says it will do. */
export const planSummarySchema = z.object({
  create: z.number().int(),
  update: z.number().int(),
  replace: z.number().int(),
  destroy: z.number().int(),
  resources: z.array(planResourceSchema),
  /** True when `resources` was cut at PLAN_MAX_RESOURCES (the counts are still all of them). */
  truncated: z.boolean().default(false),
  /** Output values that change (names only). */
  output_changes: z.array(z.string()).default([]),
  /** The plan was `-refresh-only` (a drift check that ignores configuration changes). */
  refresh_only: z.boolean().default(false),
  /** The template's policy on this plan; null when the template has none. */
  policy: policyVerdictSchema.nullable().default(null),
});
export type PlanSummary = z.infer<typeof planSummarySchema>;

/** The counts only (confirm dialog, notifications, lists). */
export function planCounts(s: Pick<PlanSummary, 'create' | 'update' | 'replace' | 'destroy'>): string {
  return `${s.create} to add, ${s.update} to change, ${s.replace} to replace, ${s.destroy} to destroy`;
}

/** Whether a plan changes anything at all. */
export function planHasChanges(s: Pick<PlanSummary, 'create' | 'update' | 'replace' | 'destroy'>): boolean {
  return s.create + s.update + s.replace + s.destroy > 0;
}

/** Who confirmed a plan, and when (null until confirmed). */
export const planConfirmationSchema = z.object({
  user_id: z.number().int().nullable(),
  user_name: z.string().nullable(),
  at: z.string(),
});
export type PlanConfirmation = z.infer<typeof planConfirmationSchema>;

// ---------------------------------------------------------------------------------------------
// Drift

export const DRIFT_STATUSES = ['clean', 'drifted', 'unknown'] as const;
export const driftStatusSchema = z.enum(DRIFT_STATUSES);
export type DriftStatus = z.infer<typeof driftStatusSchema>;

/** What the last drift check of a workspace found; `unknown` until one ran to its end (or when the last one failed). */
export const driftSchema = z.object({
  status: driftStatusSchema,
  checked_at: z.string().nullable(),
  /** The changes found (drifted), null otherwise. */
  summary: planSummarySchema.nullable(),
  /** The drift-check task that decided it. */
  task_id: z.number().int().nullable(),
  template_id: z.number().int().nullable(),
  refresh_only: z.boolean(),
});
export type Drift = z.infer<typeof driftSchema>;

export const UNKNOWN_DRIFT: Drift = {
  status: 'unknown',
  checked_at: null,
  summary: null,
  task_id: null,
  template_id: null,
  refresh_only: false,
};

/** The schedule kinds: '' runs the template; 'drift_check' plans only and records drift. */
export const SCHEDULE_TYPES = ['', 'drift_check'] as const;
export const scheduleTypeSchema = z.enum(SCHEDULE_TYPES);
export type ScheduleType = z.infer<typeof scheduleTypeSchema>;

/** What a drift-check task carries in its params (set by the scheduler or `POST .../drift_check`, never by a task request). */
export const driftCheckParamsSchema = z.object({ refresh_only: z.boolean().default(false) });
export type DriftCheckParams = z.infer<typeof driftCheckParamsSchema>;

// ---------------------------------------------------------------------------------------------
// Policy

const nonNegative = coded('Maximum destroys must be a whole number, 0 or more', ErrorCodes.outOfRange, {
  label_key: 'max_destroys',
  min: 0,
  max: 100000,
});

/** A Terraform resource type name (`aws_instance`, `terraform_data`). */
const resourceType = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_.*-]{1,128}$/, coded('Resource types are names like aws_instance', ErrorCodes.invalidValue, { label_key: 'resource_type' }));

/** A folder of the repository (relative, no `..`, no leading `-`). */
const policyFolder = z
  .string()
  .trim()
  .max(1024)
  .refine(
    (p) => p === '' || (!p.startsWith('/') && !p.startsWith('-') && !p.split('/').includes('..')),
    coded('The policy folder is a path inside the repository', ErrorCodes.invalidValue, { label_key: 'policy_path' }),
  );

/** A template's Terraform policy (in its `task_params.policy`), checked on every plan before confirmation is offered. */
export const terraformPolicySchema = z.object({
  /** No plan may destroy (or replace) more resources; null: no limit. */
  max_destroys: z.number(nonNegative).int(nonNegative).min(0, nonNegative).max(100000, nonNegative).nullish(),
  /** Types no plan may destroy or replace. */
  deny_destroy_types: z.array(resourceType).max(200).default([]),
  /** Types no plan may create (or replace). */
  deny_create_types: z.array(resourceType).max(200).default([]),
  /** A plan that destroys anything waits for a project owner's confirmation (even with auto-approve). */
  destroys_need_owner: z.boolean().default(false),
  /** A plan with any change waits for confirmation by this role or a higher one (even with auto-approve); null: off. */
  changes_need_role: z.enum(PROJECT_ROLES).nullish(),
  /** A folder of Rego policies in the repository, evaluated with `conftest` (or `opa`) on `show -json`; empty: none. */
  policy_path: policyFolder.default(''),
});
export type TerraformPolicy = z.output<typeof terraformPolicySchema>;
export type TerraformPolicyInput = z.input<typeof terraformPolicySchema>;

/** Higher roles first: a role "or higher" is any role at or before it. */
const ROLE_RANK: Record<(typeof PROJECT_ROLES)[number], number> = { owner: 3, manager: 2, task_runner: 1, guest: 0 };

/** Whether `role` is `needed` or higher. */
export function roleAtLeast(role: string | null, needed: (typeof PROJECT_ROLES)[number]): boolean {
  return role !== null && role in ROLE_RANK && ROLE_RANK[role as keyof typeof ROLE_RANK] >= ROLE_RANK[needed];
}

const counts = (s: PlanSummary, a: PlanAction) => s.resources.filter((r) => r.action === a);

/**
 * The built-in rules on a plan (conftest/opa reasons are added by the engine). Pure: the engine
 * evaluates it before confirmation is offered, the console shows the same reasons.
 */
export function evaluatePolicy(summary: PlanSummary, policy: TerraformPolicy | null | undefined): PolicyVerdict | null {
  if (!policy) return null;
  const reasons: PolicyVerdict['reasons'] = [];
  const destroys = summary.destroy + summary.replace;
  if (policy.max_destroys != null && destroys > policy.max_destroys)
    reasons.push({
      code: ErrorCodes.policyMaxDestroys,
      message: `The plan destroys ${destroys} resource(s); the policy allows at most ${policy.max_destroys}`,
      params: { count: destroys, max: policy.max_destroys },
    });
  const destroyed = [...counts(summary, 'destroy'), ...counts(summary, 'replace')];
  for (const t of policy.deny_destroy_types) {
    const hit = destroyed.filter((r) => typeMatches(r.type, t));
    if (hit.length)
      reasons.push({
        code: ErrorCodes.policyDenyDestroy,
        message: `Resources of type ${t} may not be destroyed: ${hit.map((r) => r.address).join(', ')}`,
        params: { type: t, addresses: hit.map((r) => r.address).join(', ') },
      });
  }
  const created = [...counts(summary, 'create'), ...counts(summary, 'replace')];
  for (const t of policy.deny_create_types) {
    const hit = created.filter((r) => typeMatches(r.type, t));
    if (hit.length)
      reasons.push({
        code: ErrorCodes.policyDenyCreate,
        message: `Resources of type ${t} may not be created: ${hit.map((r) => r.address).join(', ')}`,
        params: { type: t, addresses: hit.map((r) => r.address).join(', ') },
      });
  }
  let confirmRole: PolicyVerdict['confirm_role'] = null;
  if (policy.changes_need_role && planHasChanges(summary)) confirmRole = policy.changes_need_role;
  if (policy.destroys_need_owner && destroys > 0) confirmRole = 'owner';
  return { passed: reasons.length === 0, reasons, confirm_role: confirmRole };
}

/** `aws_*` style patterns: a trailing `*` matches any suffix. */
function typeMatches(type: string, pattern: string): boolean {
  return pattern.endsWith('*') ? type.startsWith(pattern.slice(0, -1)) : type === pattern;
}

// ---------------------------------------------------------------------------------------------
// State history

/** One resource's difference between two state versions. */
export const stateResourceDiffSchema = z.object({
  address: z.string(),
  change: z.enum(['added', 'removed', 'changed']),
  /** Attribute paths that differ (values redacted as the state view redacts them). */
  attributes: z.array(planAttributeChangeSchema),
});
export type StateResourceDiff = z.infer<typeof stateResourceDiffSchema>;

/** `GET /api/project/{pid}/inventory/{iid}/terraform/states/diff?from=&to=`. */
export const stateDiffSchema = z.object({
  from: z.number().int(),
  to: z.number().int(),
  resources: z.array(stateResourceDiffSchema),
  outputs: z.array(planAttributeChangeSchema),
});
export type StateDiff = z.infer<typeof stateDiffSchema>;
