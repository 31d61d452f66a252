import type { WorkflowApprovers } from '@gantry/contracts';

/** Who asks, as eligibility sees them: their membership of the approval's project, if any. */
export interface Voter {
  userId: number;
  /** Null for a non-member (an admin reaching the project without a role, say). */
  member: { role: string; mapped_group: string | null } | null;
}

/**
 * Whether a user may vote on an approval: a user it names, a member whose role it names, or a
 * member whose membership came from a directory group it names. The requester may not unless
 * self-approval is allowed. Being an admin makes no one an approver.
 */
export function isEligible(
  a: { approvers: WorkflowApprovers; requester_id: number | null; allow_self_approval: boolean },
  v: Voter,
): boolean {
  if (!a.allow_self_approval && a.requester_id !== null && a.requester_id === v.userId) return false;
  if (a.approvers.users.includes(v.userId)) return true;
  if (!v.member) return false;
  if ((a.approvers.roles as string[]).includes(v.member.role)) return true;
  return v.member.mapped_group !== null && a.approvers.groups.includes(v.member.mapped_group);
}
