import type { ProjectBackup, Workflow } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { engines, signedInUser, useTestApp, type Caller } from '../../test/harness.js';
import { fullProject } from '../../test/full-project.js';

const download = async (c: Caller, p: number) => JSON.parse((await c.get(`/api/project/${p}/backup?format=gantry`)).body) as ProjectBackup;

describe.each(engines)('workflows in project backups ($name)', (engine) => {
  const t = useTestApp(engine);

  /** The full project with two workflows: a release over its templates, and one that runs the release. */
  async function withWorkflows(admin: Caller) {
    const src = await fullProject(admin);
    const byName = async (path: string, name: string) =>
      (await admin.get(`/api/project/${src.p}/${path}`)).json<Array<{ id: number; name: string }>>().find((x) => x.name === name)!.id;
    const [build, deploy, playbook, env] = [await byName('templates', 'Build'), await byName('templates', 'Deploy'), await byName('templates', 'Playbook'), (await admin.get(`/api/project/${src.p}/environment`)).json<Array<{ id: number }>>()[0]!.id];
    const release = await admin.post(`/api/project/${src.p}/workflows`, {
      name: 'Release',
      description: 'build, approve, deploy',
      nodes: [
        { id: 'build', type: 'template', template_id: build },
        { id: 'approve', type: 'approval', approvers: { users: [admin.id], roles: ['owner'] }, required_approvals: 1 },
        { id: 'deploy', type: 'template', template_id: deploy, retries: 2 },
        { id: 'playbook', type: 'template', template_id: playbook, params: { limit: 'web1', environment_id: env, environment: { version: '1.2' } } },
      ],
      edges: [
        { from: 'build', to: 'approve', on: 'success' },
        { from: 'approve', to: 'deploy', on: 'success' },
        { from: 'deploy', to: 'playbook', on: 'always' },
      ],
    });
    expect(release.statusCode, release.body).toBe(201);
    const outer = await admin.post(`/api/project/${src.p}/workflows`, { name: 'Outer', nodes: [{ id: 'run', type: 'workflow', workflow_id: release.json<Workflow>().id }] });
    expect(outer.statusCode, outer.body).toBe(201);
    return src;
  }

  it("carries workflows in Gantry's format, numbered as the backup's objects, and restores them pointing at the restored ones", async () => {
    const admin = await signedInUser(t(), { admin: true });
    const src = await withWorkflows(admin);
    const doc = await download(admin, src.p);
    const tplId = (name: string) => doc.templates.find((x) => x.name === name)!.id;
    const release = doc.workflows.find((w) => w.name === 'Release')!;
    expect(release.nodes.map((n) => [n.id, n.template_id ?? null])).toEqual([
      ['build', tplId('Build')],
      ['approve', null],
      ['deploy', tplId('Deploy')],
      ['playbook', tplId('Playbook')],
    ]);
    // A backup holds no users: named approvers are left out, roles stay.
    expect(release.nodes[1]!.approvers).toEqual({ users: [], roles: ['owner'], groups: [] });
    expect(release.nodes[3]!.params).toMatchObject({ limit: 'web1', environment_id: doc.environments[0]!.id, environment: { version: '1.2' } });
    expect(doc.workflows.find((w) => w.name === 'Outer')!.nodes[0]!.workflow_id).toBe(release.id);

    // Outer listed first: it still comes back after the workflow it runs.
    const res = await admin.post('/api/projects/restore', { ...doc, workflows: [...doc.workflows].reverse() });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().unmapped).toEqual([]);
    const q = res.json<{ id: number }>().id;
    const restored = (await admin.get(`/api/project/${q}/workflows`)).json<Workflow[]>();
    const templates = (await admin.get(`/api/project/${q}/templates`)).json<Array<{ id: number; name: string }>>();
    const tpl = (name: string) => templates.find((x) => x.name === name)!.id;
    const r = restored.find((w) => w.name === 'Release')!;
    expect(r.nodes.map((n) => n.template_id ?? null)).toEqual([tpl('Build'), null, tpl('Deploy'), tpl('Playbook')]);
    expect(r.nodes[2]!.retries).toBe(2);
    expect(r.edges).toEqual(release.edges);
    expect(r.nodes[3]!.params!.environment_id).toBe((await admin.get(`/api/project/${q}/environment`)).json<Array<{ id: number }>>()[0]!.id);
    expect(restored.find((w) => w.name === 'Outer')!.nodes[0]!.workflow_id).toBe(r.id);
  });

  it('leaves out, and lists, a workflow whose template or nested workflow was not restored, and workflows that run each other', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const src = await withWorkflows(admin);
    const doc = await download(admin, src.p);
    const release = doc.workflows.find((w) => w.name === 'Release')!;
    const odd: ProjectBackup = {
      ...doc,
      // Gantry's rules refuse the URL: the repository is not restored, nor the Playbook template on it.
      repositories: doc.repositories.map((r) => (r.name === 'app repo' ? { ...r, git_url: 'ext::sh -c evil' } : r)),
      workflows: [
        ...doc.workflows,
        { id: 90, name: 'Ping', description: '', nodes: [{ ...release.nodes[0]!, id: 'p', type: 'workflow', template_id: null, workflow_id: 91 }], edges: [], joins: {} },
        { id: 91, name: 'Pong', description: '', nodes: [{ ...release.nodes[0]!, id: 'q', type: 'workflow', template_id: null, workflow_id: 90 }], edges: [], joins: {} },
      ],
    };
    const res = await admin.post('/api/projects/restore', odd);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().unmapped).toEqual(
      expect.arrayContaining([
        'Workflow "Release": node "playbook": template "Playbook" was left out; not restored',
        'Workflow "Outer": node "run": workflow "Release" was left out; not restored',
        'Workflow "Ping": no workflow it runs that does not run it back; not restored',
        'Workflow "Pong": no workflow it runs that does not run it back; not restored',
      ]),
    );
    expect((await admin.get(`/api/project/${res.json<{ id: number }>().id}/workflows`)).json()).toEqual([]);
  });
});
