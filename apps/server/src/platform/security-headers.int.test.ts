import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../test/harness.js';
import { runTask, setupTemplate, waitForTask } from '../test/tasks.js';

/** A stand-in for the built console, so `/` and client-side routes are served. */
function consoleDist(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-web-'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><title>Gantry</title><script type="module" src="/assets/app.js"></script>',
  );
  return dir;
}

function csp(res: LightMyRequestResponse): Map<string, string> {
  const header = String(res.headers['content-security-policy'] ?? '');
  return new Map(
    header
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => {
        const [name = '', ...values] = d.split(/\s+/);
        return [name, values.join(' ')] as [string, string];
      }),
  );
}

describe.each(engines)('security headers ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_WEB_DIST: consoleDist() });

  it('are on the console, the API, raw logs, errors and 404s', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'run.sh': 'echo "<script>alert(1)</script>"\n' }), {
      app: 'bash',
      playbook: 'run.sh',
    });
    const task = await runTask(admin, p, { template_id: s.templateId });
    await waitForTask(admin, p, task);

    const answers = {
      console: await ctx.app.inject({ method: 'GET', url: '/' }),
      'console route': await ctx.app.inject({ method: 'GET', url: `/project/${p}/history` }),
      ping: await ctx.app.inject({ method: 'GET', url: '/api/ping' }),
      'raw log': await admin.get(`/api/project/${p}/tasks/${task}/raw_output`),
      'signed out': await ctx.app.inject({ method: 'GET', url: '/api/projects' }),
      'api 404': await ctx.app.inject({ method: 'GET', url: '/api/no-such-thing' }),
    };
    expect(answers.console.statusCode).toBe(200);
    expect(answers['raw log'].body).toContain('<script>');
    for (const [what, res] of Object.entries(answers)) {
      const policy = csp(res);
      expect(Object.fromEntries(policy), what).toMatchObject({
        'default-src': "'self'",
        'script-src': "'self'",
        'connect-src': "'self'",
        'object-src': "'none'",
        'base-uri': "'self'",
        'frame-ancestors': "'none'",
        'form-action': "'self'",
      });
      expect(policy.has('upgrade-insecure-requests'), what).toBe(false);
      expect(res.headers['x-content-type-options'], what).toBe('nosniff');
      expect(res.headers['x-frame-options'], what).toBe('DENY');
      expect(res.headers['referrer-policy'], what).toBe('same-origin');
      expect(res.headers['strict-transport-security'], what).toBeUndefined();
    }
  });
});

describe.each(engines)('security headers behind https ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_WEB_HOST: 'https://gantry.example' });

  it('add HSTS and upgrade-insecure-requests when GANTRY_WEB_HOST is https', async () => {
    const res = await t().app.inject({ method: 'GET', url: '/api/ping' });
    expect(res.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
    expect(csp(res).has('upgrade-insecure-requests')).toBe(true);
  });
});
