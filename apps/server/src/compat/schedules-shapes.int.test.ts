import { scheduleSchema } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../test/harness.js';
import { setupTemplate } from '../test/tasks.js';
import { scriptClient } from './script-client.js';

describe.each(engines)('Semaphore clients: schedules ($name)', (engine) => {
  const t = useTestApp(engine);

  const project = async () => {
    const admin = await signedInUser(t(), { admin: true });
    const api = await scriptClient(t(), admin);
    const p = await createProject(admin);
    const s = await setupTemplate(admin, p, gitRepo({ 'ok.sh': 'echo ok\n' }), { app: 'bash', playbook: 'ok.sh' });
    return { api, p, templateId: s.templateId };
  };

  it('names a schedule sent without a name (optional in Semaphore) after its cron expression', async () => {
    const { api, p, templateId } = await project();
    const bodies = [
      { project_id: p, template_id: templateId, cron_format: '*/5 * * * *', active: true },
      { project_id: p, template_id: templateId, cron_format: ' 0 3 * * 1 ', name: '' },
      { project_id: p, template_id: templateId, cron_format: '0 4 * * *', name: '   ' },
    ];
    const names = [];
    for (const body of bodies) {
      const res = await api.send('POST', `/api/project/${p}/schedules`, body);
      expect(res.statusCode, res.body).toBe(201);
      names.push(res.json().name);
    }
    expect(names).toEqual(['*/5 * * * *', '0 3 * * 1', '0 4 * * *']);
    // A name given stays the name; the checks that protect data stay: a bad cron is refused.
    const named = await api.send('POST', `/api/project/${p}/schedules`, {
      template_id: templateId,
      cron_format: '0 5 * * *',
      name: 'nightly',
    });
    expect(named.json().name).toBe('nightly');
    const bad = await api.send('POST', `/api/project/${p}/schedules`, {
      template_id: templateId,
      cron_format: '61 * * * *',
    });
    expect(bad.statusCode).toBe(400);
    expect((await api.send('GET', `/api/project/${p}/schedules`)).json()).toHaveLength(4);
  });

  it('refuses a one-off `run_at` schedule naming `type`, rather than making it a recurring one', async () => {
    const { api, p, templateId } = await project();
    // As a newer Semaphore client sends one: its cron field may still hold the form's default.
    for (const cron_format of ['* * * * *', '']) {
      const res = await api.send('POST', `/api/project/${p}/schedules`, {
        project_id: p,
        template_id: templateId,
        name: 'once',
        type: 'run_at',
        run_at: '2030-01-01T03:00:00Z',
        cron_format,
        active: true,
      });
      expect([res.statusCode, res.json()]).toEqual([
        400,
        {
          error: 'Schedule type must be "" (cron) or "drift_check": one-off run_at schedules are not supported',
          code: 'must_be_one_of',
          name: 'type',
          values: '"", drift_check',
          field: 'type',
        },
      ]);
    }
    expect((await api.send('GET', `/api/project/${p}/schedules`)).json()).toEqual([]);
    // Semaphore's cron type ("", or null), as its answers carry it, is taken.
    for (const type of ['', null]) {
      const ok = await api.send('POST', `/api/project/${p}/schedules`, {
        template_id: templateId,
        cron_format: '0 3 * * *',
        type,
      });
      expect(ok.statusCode, ok.body).toBe(201);
      const id = ok.json().id as number;
      const read = (await api.send('GET', `/api/project/${p}/schedules/${id}`)).json();
      // Sent back as read (a rename), and switched to run_at: refused, nothing changed.
      expect(
        (await api.send('PUT', `/api/project/${p}/schedules/${id}`, { ...read, name: 'renamed' })).statusCode,
      ).toBe(204);
      expect((await api.send('PUT', `/api/project/${p}/schedules/${id}`, { ...read, type: 'run_at' })).statusCode).toBe(
        400,
      );
      expect((await api.send('GET', `/api/project/${p}/schedules/${id}`)).json()).toMatchObject({
        name: 'renamed',
        type: '',
      });
    }
  });

  it("answers with Semaphore's schedule fields (`type` '' for cron, `delete_after_run` false) and `tpl_name`", async () => {
    const { api, p, templateId } = await project();
    const created = await api.send('POST', `/api/project/${p}/schedules`, {
      template_id: templateId,
      cron_format: '0 3 * * *',
      name: 'nightly',
    });
    const id = created.json().id as number;
    const expected = {
      id,
      project_id: p,
      template_id: templateId,
      // Gantry's own: the workflow a schedule starts instead of a template.
      workflow_id: null,
      name: 'nightly',
      cron_format: '0 3 * * *',
      repository_id: null,
      active: true,
      type: '',
      delete_after_run: false,
      tpl_name: 'tpl',
      last_commit_hash: null,
    };
    expect(created.json()).toEqual(expected);
    expect((await api.send('GET', `/api/project/${p}/schedules/${id}`)).json()).toEqual(expected);
    expect((await api.send('GET', `/api/project/${p}/schedules`)).json()).toEqual([expected]);
    expect((await api.send('GET', `/api/project/${p}/templates/${templateId}/schedules`)).json()).toEqual([expected]);
    expect(scheduleSchema.parse(expected)).toEqual(expected);
  });
});
