import { expect, request as newRequest, type APIRequestContext } from '@playwright/test';
import { apiPost } from './api-calls';
import { E2E_ADMIN } from './helpers';
import { codeFor } from './totp-helpers';

const H = { 'x-gantry-request': '1' };
/** The admin's two-factor requirement (off, admins, all). */
export const POLICY_URL = '/api/admin/settings/two-factor';

/** A request context signed in with a password (the session is complete: the user has no second step). */
export async function apiSession(baseURL: string, login: string, password: string): Promise<APIRequestContext> {
  const ctx = await newRequest.newContext({ baseURL });
  const res = await ctx.post('/api/auth/login', { data: { auth: login, password }, headers: H });
  expect(res.status(), `sign-in of ${login}`).toBe(204);
  return ctx;
}

/**
 * Seeded through the API for specs that require two-factor sign-in of everyone: a second admin
 * who has it (so the requirement never locks them out and they turn it off again for the specs
 * after), a member without it, and a project the member is a task runner of. `sec` is the second
 * admin's session; `release()` turns the requirement off and closes the sessions.
 */
export async function seedTwoFactorPolicy(base: string, prefix: string, projectName: string) {
  const admin = await apiSession(base, E2E_ADMIN.login, E2E_ADMIN.password);
  const stamp = Date.now().toString(36);
  const secAdmin = { login: `${prefix}admin${stamp}`, password: `${prefix}-admin-pass-1` };
  const member = { login: `${prefix}member${stamp}`, password: `${prefix}-member-pass-1` };
  const secAdminRow = await apiPost<{ id: number }>(admin, '/api/users', {
    name: 'Sam Security',
    username: secAdmin.login,
    email: `${secAdmin.login}@example.com`,
    password: secAdmin.password,
    admin: true,
  });
  const memberRow = await apiPost<{ id: number }>(admin, '/api/users', {
    name: 'Mia Member',
    username: member.login,
    email: `${member.login}@example.com`,
    password: member.password,
  });
  const project = await apiPost<{ id: number }>(admin, '/api/projects', { name: projectName });
  await apiPost(admin, `/api/project/${project.id}/users`, { user_id: memberRow.id, role: 'task_runner' });
  const sec = await apiSession(base, secAdmin.login, secAdmin.password);
  const started = await apiPost<{ id: number; secret: string }>(sec, `/api/users/${secAdminRow.id}/2fas/totp`, {
    password: secAdmin.password,
  });
  await apiPost(sec, `/api/users/${secAdminRow.id}/2fas/totp/${started.id}/confirm`, { code: codeFor(started.secret) });
  return {
    admin,
    sec,
    secAdmin: { ...secAdmin, totpSecret: started.secret },
    member: { ...member, id: memberRow.id, name: 'Mia Member' },
    project,
    async release() {
      const off = await sec.put(POLICY_URL, { data: { required: 'off' }, headers: H });
      expect(off.status()).toBe(200);
      await sec.dispose();
      await admin.dispose();
    },
  };
}
