import type { ProjectBackup } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';
import { createWorkflow, tnode, wfProject } from '../../test/workflow-runs.js';

const download = async (c: Caller, p: number, format: 'gantry' | 'semaphore') =>
  JSON.parse((await c.get(`/api/project/${p}/backup?format=${format}`)).body);

describe.each(engines)('schedules and integrations of workflows in backups ($name)', (engine) => {
  const t = useTestApp(engine);

  it("round-trip in Gantry's format, pointing at the restored workflow; Semaphore's format leaves them out", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const { p, tpl } = await wfProject(admin);
    const w = await createWorkflow(admin, p, { nodes: [tnode('a', tpl['ok.sh'])] });
    const wfName = (await admin.get(`/api/project/${p}/workflows/${w}`)).json().name;
    for (const body of [
      { name: 'tpl nightly', template_id: tpl['ok.sh'], cron_format: '0 3 * * *' },
      { name: 'wf nightly', workflow_id: w, cron_format: '0 4 * * *' },
    ])
      expect((await admin.post(`/api/project/${p}/schedules`, body)).statusCode).toBe(201);
    for (const body of [
      { name: 'tpl hook', template_id: tpl['ok.sh'] },
      { name: 'wf hook', workflow_id: w },
    ])
      expect((await admin.post(`/api/project/${p}/integrations`, body)).statusCode).toBe(201);
    const wfHook = (await admin.get(`/api/project/${p}/integrations`))
      .json()
      .find((i: { name: string }) => i.name === 'wf hook').id;
    expect(
      (
        await admin.post(`/api/project/${p}/integrations/${wfHook}/matchers`, {
          name: 'm',
          match_type: 'header',
          key: 'X-Event',
          method: 'equals',
          value: 'push',
        })
      ).statusCode,
    ).toBe(201);

    const doc = (await download(admin, p, 'gantry')) as ProjectBackup;
    const backupWf = doc.workflows.find((x) => x.name === wfName)!.id;
    expect(doc.schedules.find((s) => s.name === 'wf nightly')).toMatchObject({ workflow_id: backupWf });
    expect(doc.schedules.find((s) => s.name === 'wf nightly')!.template_id ?? null).toBeNull();
    expect(doc.integrations.find((s) => s.name === 'wf hook')).toMatchObject({ workflow_id: backupWf });

    const res = await admin.post('/api/projects/restore', doc);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().unmapped).toEqual([]);
    const q = res.json<{ id: number }>().id;
    const restoredWf = (await admin.get(`/api/project/${q}/workflows`))
      .json()
      .find((x: { name: string }) => x.name === wfName).id;
    const restoredTpl = (await admin.get(`/api/project/${q}/templates`))
      .json()
      .find((x: { name: string }) => x.name === 'ok.sh').id;
    const schedules = (await admin.get(`/api/project/${q}/schedules`)).json();
    expect(
      schedules.map((s: { name: string; template_id: number; workflow_id: number | null; active: boolean }) => [
        s.name,
        s.template_id,
        s.workflow_id,
        s.active,
      ]),
    ).toEqual([
      ['tpl nightly', restoredTpl, null, false],
      ['wf nightly', 0, restoredWf, false],
    ]);
    const integrations = (await admin.get(`/api/project/${q}/integrations`)).json();
    expect(
      integrations.map((i: { name: string; template_id: number; workflow_id: number | null }) => [
        i.name,
        i.template_id,
        i.workflow_id,
      ]),
    ).toEqual([
      ['tpl hook', restoredTpl, null],
      ['wf hook', 0, restoredWf],
    ]);
    const hook = integrations.find((i: { name: string }) => i.name === 'wf hook').id;
    expect((await admin.get(`/api/project/${q}/integrations/${hook}/matchers`)).json()).toEqual([
      expect.objectContaining({ name: 'm', value: 'push' }),
    ]);

    // Semaphore has no workflows: its format carries the template ones only.
    const sem = await download(admin, p, 'semaphore');
    expect(sem.schedules.map((s: { name: string }) => s.name)).toEqual(['tpl nightly']);
    expect(sem.integrations.map((i: { name: string }) => i.name)).toEqual(['tpl hook']);
  });
});
