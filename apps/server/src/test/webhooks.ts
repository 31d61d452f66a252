import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import { gitRepo } from './git-fixture.js';
import { createProject, signedInUser, type Caller, type TestContext } from './harness.js';
import { setupTemplate, waitForTask } from './tasks.js';

/** A bash template in the project (one script, always succeeding unless told otherwise). */
export async function bashTemplate(c: Caller, p: number, name = 'deploy', script = 'echo run\n'): Promise<number> {
  const s = await setupTemplate(c, p, gitRepo({ 'run.sh': script }), { app: 'bash', playbook: 'run.sh', name });
  return s.templateId;
}

/** A GitHub `push` delivery, trimmed to the fields a hook reads. */
export const githubPush = (ref = 'refs/heads/main') => ({
  ref,
  before: '0000000000000000000000000000000000000000',
  after: '6dcb09b5b57875f334f61aebed695e2e4193db5e',
  repository: {
    id: 1296269,
    name: 'app',
    full_name: 'acme/app',
    private: false,
    owner: { login: 'acme' },
    default_branch: 'main',
  },
  pusher: { name: 'octocat', email: 'octocat@github.com' },
  head_commit: {
    id: '6dcb09b5b57875f334f61aebed695e2e4193db5e',
    message: 'Fix all the bugs',
    timestamp: '2026-01-01T10:00:00Z',
  },
  commits: [{ id: '6dcb09b5b57875f334f61aebed695e2e4193db5e', message: 'Fix all the bugs' }],
});

/** A Bitbucket Cloud `repo:push` delivery. */
export const bitbucketPush = (branch = 'main') => ({
  actor: { display_name: 'Ada', type: 'user' },
  repository: { type: 'repository', name: 'app', full_name: 'acme/app' },
  push: {
    changes: [
      {
        new: {
          type: 'branch',
          name: branch,
          target: { type: 'commit', hash: '1e65c05c1d5171631d92438a13901ca7dae9618c' },
        },
        old: null,
        created: true,
        closed: false,
        forced: false,
      },
    ],
  },
});

export const hmac = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

export interface WebhookSetup {
  admin: Caller;
  p: number;
  tpl: number;
  /** A login with password key; its password is the integration secret. */
  key(password: string, login?: string): Promise<number>;
  /** An integration on the template with its matchers and values, and one alias of its own. */
  integration(body: object, parts?: { matchers?: object[]; values?: object[] }): Promise<{ id: number; alias: string }>;
}

/** An admin, a project and a bash template running `script`, ready for integrations. */
export async function setupWebhooks(ctx: TestContext, script = 'echo ok\n'): Promise<WebhookSetup> {
  const admin = await signedInUser(ctx, { admin: true });
  const p = await createProject(admin);
  const tpl = await bashTemplate(admin, p, 'hooked', script);
  const base = `/api/project/${p}/integrations`;
  return {
    admin,
    p,
    tpl,
    async key(password, login = 'hook') {
      const r = await admin.post(`/api/project/${p}/keys`, {
        name: `secret-${password.length}-${login}`,
        type: 'login_password',
        login_password: { login, password },
      });
      expect(r.statusCode).toBe(201);
      return r.json().id;
    },
    async integration(body, parts = {}) {
      const r = await admin.post(base, { name: 'hook', template_id: tpl, ...body });
      expect(r.statusCode).toBe(201);
      const id = r.json().id;
      for (const m of parts.matchers ?? []) {
        expect((await admin.post(`${base}/${id}/matchers`, m)).statusCode).toBe(201);
      }
      for (const v of parts.values ?? []) {
        expect((await admin.post(`${base}/${id}/values`, v)).statusCode).toBe(201);
      }
      return { id, alias: (await admin.post(`${base}/${id}/aliases`)).json().alias };
    },
  };
}

/** Posts a delivery to an alias as another server would. */
export function deliver(ctx: TestContext, alias: string, body: string | Buffer, headers: Record<string, string> = {}) {
  return ctx.app.inject({ method: 'POST', url: `/api/integrations/${alias}`, headers, payload: body });
}

/** The tasks an integration started. */
export async function tasksOf(c: Caller, p: number, integrationId: number) {
  const all = (await c.get(`/api/project/${p}/tasks`)).json() as Array<{
    id: number;
    integration_id: number | null;
    environment: string;
    message: string;
  }>;
  return all.filter((x) => x.integration_id === integrationId);
}

/** Lets every started task finish before the test ends (the app closes after the block). */
export async function settle(c: Caller, p: number) {
  const tasks = (await c.get(`/api/project/${p}/tasks`)).json() as Array<{ id: number }>;
  for (const x of tasks) await waitForTask(c, p, x.id);
}

/** The one answer for an unknown alias and an unauthenticated delivery. */
export const NOT_FOUND = { error: 'Not found', code: 'not_found' };
