import i18n from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import de from '../../../locales/de.json';
import en from '../../../locales/en.json';
import { DEFAULT_POLICY, policyErrors, policyProblems } from './approval-policy';

beforeAll(async () => {
  await i18n.init({
    resources: { en: { translation: en }, de: { translation: de } },
    lng: 'en',
    fallbackLng: 'en',
    interpolation: { escapeValue: false },
  });
});

const none = { users: [], roles: [], groups: [] };

describe('a template approval policy, checked in the form', () => {
  it('accepts the default (owners and managers, one approval) and no policy at all', () => {
    expect(policyProblems(DEFAULT_POLICY)).toEqual({});
    expect(policyProblems(null)).toEqual({});
  });

  it('needs someone who can approve, in the user language', async () => {
    expect(policyProblems({ ...DEFAULT_POLICY, approvers: none })).toEqual({
      approvers: 'Name at least one approver: a user, a role or a group',
    });
    await i18n.changeLanguage('de');
    expect(policyProblems({ ...DEFAULT_POLICY, approvers: none }).approvers).toMatch(/mindestens eine/);
    await i18n.changeLanguage('en');
  });

  it('refuses more approvals than the named users alone can give', () => {
    expect(policyProblems({ ...DEFAULT_POLICY, approvers: { ...none, users: [4, 5] }, required_approvals: 3 })).toEqual(
      {
        required_approvals: 'Only 2 users are named: add approvers or require fewer approvals',
      },
    );
    // A role or a group may hold any number of people: no such limit then.
    expect(
      policyProblems({
        ...DEFAULT_POLICY,
        approvers: { ...none, users: [4], roles: ['owner'] },
        required_approvals: 3,
      }),
    ).toEqual({});
  });

  it("applies the contract's ranges (timeout at least a minute, at most a week)", () => {
    expect(Object.keys(policyProblems({ ...DEFAULT_POLICY, timeout_seconds: 30 }))).toEqual(['timeout_seconds']);
    expect(Object.keys(policyProblems({ ...DEFAULT_POLICY, timeout_seconds: 8 * 86_400 }))).toEqual([
      'timeout_seconds',
    ]);
    expect(Object.keys(policyProblems({ ...DEFAULT_POLICY, required_approvals: 0 }))).toEqual(['required_approvals']);
  });

  it('shows nothing before a save attempt, then the form and section messages by field', () => {
    const bad = { ...DEFAULT_POLICY, approvers: none };
    expect(policyErrors({}, bad, false)).toEqual({});
    expect(
      policyErrors({ 'approval_policy.timeout_seconds': 'too short', name: 'Name is required' }, bad, true),
    ).toEqual({
      timeout_seconds: 'too short',
      approvers: 'Name at least one approver: a user, a role or a group',
    });
  });
});
