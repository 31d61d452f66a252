import { describe, expect, it } from 'vitest';
import { gitRepo } from '../../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../../test/harness.js';
import { setupTemplate } from '../../test/tasks.js';

describe.each(engines)('parameter patterns on the server ($name)', (engine) => {
  const t = useTestApp(engine);

  it('a pattern that backtracks exponentially answers at once; backreferences and lookaround are refused on save', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const { templateId } = await setupTemplate(admin, p, gitRepo({ 'run.sh': 'true\n' }), {
      app: 'bash',
      playbook: 'run.sh',
      survey_vars: [{ name: 'word', title: 'Word', regex: '(a+)+b' }],
    });
    const started = Date.now();
    const r = await admin.post(`/api/project/${p}/tasks`, {
      template_id: templateId,
      environment: JSON.stringify({ word: 'a'.repeat(5_000) + 'c' }),
    });
    expect([r.statusCode, r.json().code]).toEqual([400, 'survey_value_pattern']);
    // With JavaScript's engine this request would not come back; RE2 is linear.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect((await admin.get('/api/ping')).statusCode).toBe(200);

    const stored = (await admin.get(`/api/project/${p}/templates/${templateId}`)).json<Record<string, unknown>>();
    for (const regex of ['(a)\\1', '(?=a)a']) {
      const saved = await admin.put(`/api/project/${p}/templates/${templateId}`, {
        ...stored,
        survey_vars: [{ name: 'word', title: 'Word', regex }],
      });
      expect([saved.statusCode, saved.json().code], regex).toEqual([400, 'survey_regex_invalid']);
    }
  });
});
