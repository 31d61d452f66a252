import { describe, expect, it } from 'vitest';
import { isEligible } from './eligibility.js';

const approvers = { users: [7], roles: ['manager' as const], groups: ['ops'] };

describe('approval eligibility', () => {
  it('admits named users, members holding a named role, and members mapped from a named group', () => {
    const a = { approvers, requester_id: 1, allow_self_approval: false };
    expect(isEligible(a, { userId: 7, member: null })).toBe(true);
    expect(isEligible(a, { userId: 8, member: { role: 'manager', mapped_group: null } })).toBe(true);
    expect(isEligible(a, { userId: 9, member: { role: 'guest', mapped_group: 'ops' } })).toBe(true);
    expect(isEligible(a, { userId: 10, member: { role: 'owner', mapped_group: 'dev' } })).toBe(false);
    expect(isEligible(a, { userId: 11, member: null })).toBe(false);
  });

  it('refuses the requester unless self-approval is allowed', () => {
    expect(isEligible({ approvers, requester_id: 7, allow_self_approval: false }, { userId: 7, member: null })).toBe(
      false,
    );
    expect(isEligible({ approvers, requester_id: 7, allow_self_approval: true }, { userId: 7, member: null })).toBe(
      true,
    );
  });
});
