import { approvalPolicySchema, type ApprovalPolicy } from '@gantry/contracts';
import i18n from 'i18next';
import { issueText } from '../../../lib/contract-resolver';

/** A new policy's starting point: one approval from an owner or manager, no self approval, no timeout. */
export const DEFAULT_POLICY: ApprovalPolicy = {
  approvers: { users: [], roles: ['owner', 'manager'], groups: [] },
  required_approvals: 1,
  allow_self_approval: false,
  timeout_seconds: null,
  on_timeout: 'reject',
};

/**
 * What is wrong with a template's policy, by field (`approvers`, `required_approvals`,
 * `timeout_seconds`...): the contract's own rules, then what it cannot say alone — someone must
 * be able to approve, and named users alone must be enough for the approvals asked.
 */
export function policyProblems(policy: ApprovalPolicy | null): Record<string, string> {
  if (!policy) return {};
  const out: Record<string, string> = {};
  const r = approvalPolicySchema.safeParse(policy);
  if (!r.success) for (const issue of r.error.issues) out[String(issue.path[0] ?? 'approvers')] ??= issueText(issue);
  const a = policy.approvers;
  if (a.users.length + a.roles.length + a.groups.length === 0)
    out.approvers ??= i18n.t('approvals.policy.approversRequired');
  else if (!a.roles.length && !a.groups.length && policy.required_approvals > a.users.length)
    out.required_approvals ??= i18n.t('approvals.policy.tooFewApprovers', { n: a.users.length });
  return out;
}

/**
 * The Approval section's messages after a save attempt: the form's own (contract) messages under
 * `approval_policy.`, then the section's checks.
 */
export function policyErrors(
  formErrors: Record<string, string>,
  policy: ApprovalPolicy | null,
  attempted: boolean,
): Record<string, string> {
  if (!attempted || !policy) return {};
  const prefix = 'approval_policy.';
  const own = Object.fromEntries(
    Object.entries(formErrors)
      .filter(([k]) => k.startsWith(prefix))
      .map(([k, v]) => [k.slice(prefix.length).split('.')[0]!, v]),
  );
  return { ...own, ...policyProblems(policy) };
}
