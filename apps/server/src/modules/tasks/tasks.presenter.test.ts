import { describe, expect, it } from 'vitest';
import { presentTask, presentTaskCore } from './tasks.presenter.js';
import type { TaskRow, TaskWithNames } from './tasks.repository.js';

const row = (id: number, params: string, extra: Partial<TaskWithNames> = {}): TaskWithNames =>
  ({
    id,
    project_id: 1,
    template_id: 2,
    status: 'success',
    message: '',
    commit_hash: null,
    commit_message: '',
    version: null,
    build_task_id: null,
    user_id: 3,
    integration_id: null,
    schedule_id: null,
    environment: '{}',
    secret: 'sealed',
    params,
    git_branch: null,
    inventory_id: null,
    arguments: null,
    created: '2026-01-01T00:00:00.000Z',
    start: null,
    end: null,
    runner_id: null,
    node_id: null,
    env: 'sealed-env',
    stop_force: 0,
    runner_reported: 0,
    workflow_run_id: null,
    workflow_node: null,
    workflow_attempt: null,
    environment_id: null,
    output: null,
    inputs: null,
    user_name: 'Ann',
    tpl_name: 'deploy',
    tpl_type: '',
    tpl_app: 'bash',
    tpl_playbook: 'run.sh',
    run_workflow_id: null,
    build_task: null,
    ...extra,
  }) as TaskWithNames;

describe('presentTask', () => {
  it('answers each row’s own params, checked by the schema, whichever rows came before', () => {
    const a = presentTask(row(1, '{"debug":true,"limit":["web","db"]}'));
    const b = presentTask(row(2, '{"debug":true,"limit":["web","db"]}'));
    const c = presentTask(row(3, '{"dry_run":true,"unknown":1}'));
    const broken = presentTask(row(4, 'not json'));
    expect(a.params).toEqual({ debug: true, limit: ['web', 'db'] });
    expect([a.debug, a.limit]).toEqual([true, 'web,db']);
    expect(b.params).toEqual(a.params);
    expect(c.params).toEqual({ dry_run: true });
    expect([c.debug, c.dry_run]).toEqual([false, true]);
    expect(broken.params).toEqual({});
    // Same text after other texts: still its own value.
    expect(presentTask(row(5, '{"dry_run":true,"unknown":1}')).params).toEqual({ dry_run: true });
  });

  it('shares parsed params only as frozen objects: an answer cannot change the next one’s', () => {
    const a = presentTask(row(1, '{"tags":["x"]}'));
    expect(() => a.params.tags!.push('y')).toThrow(TypeError);
    expect(() => ((a.params as Record<string, unknown>).debug = true)).toThrow(TypeError);
    expect(presentTask(row(2, '{"tags":["x"]}')).params).toEqual({ tags: ['x'] });
  });

  it('keeps many different texts apart (past the kept number too)', () => {
    for (let i = 0; i < 1200; i++)
      expect(presentTaskCore(row(i, JSON.stringify({ tags: [`t${i}`] })) as TaskRow).params).toEqual({
        tags: [`t${i}`],
      });
  });

  it('carries names, the build task and the workflow run; never the sealed fields', () => {
    const build = row(7, '{}', { version: '1.2' }) as TaskRow;
    const t = presentTask(
      row(8, '{}', {
        build_task_id: 7,
        build_task: build,
        workflow_run_id: 4,
        run_workflow_id: 9,
        workflow_node: 'deploy',
        workflow_attempt: 2,
      }),
    );
    expect(t).toMatchObject({
      user_name: 'Ann',
      tpl_alias: 'deploy',
      tpl_app: 'bash',
      tpl_playbook: 'run.sh',
      workflow_run: { id: 4, workflow_id: 9, node: 'deploy', attempt: 2 },
    });
    expect(t.build_task).toMatchObject({ id: 7, version: '1.2', user_name: null });
    expect(JSON.stringify(t)).not.toMatch(/sealed/);
    expect(Object.keys(t).slice(0, 3)).toEqual(['id', 'template_id', 'project_id']);
  });
});
