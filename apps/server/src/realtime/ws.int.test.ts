import { SESSION_COOKIE, type WsMessage } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { addMember, createProject, engines, signedInUser, useTestApp, type Caller } from '../test/harness.js';
import { runTask, setupTemplate, waitForTask } from '../test/tasks.js';

describe.each(engines)('WebSocket /api/ws ($name)', (engine) => {
  const t = useTestApp(engine);

  const connect = async (c: Caller) => {
    const ws = await t().app.injectWS('/api/ws', { headers: { cookie: `${SESSION_COOKIE}=${c.cookie}` } });
    const messages: WsMessage[] = [];
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as WsMessage));
    return { ws, messages };
  };

  it("sends a task's log lines and status changes to members and admins only", async () => {
    const ctx = t();
    const owner = await signedInUser(ctx);
    const admin = await signedInUser(ctx, { admin: true });
    const stranger = await signedInUser(ctx);
    const p = await createProject(admin);
    await addMember(ctx, p, owner.id, 'owner');
    const repo = gitRepo({ 'run.sh': 'echo line-one\necho line-two\n' });
    const s = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'run.sh' });

    const ownerWs = await connect(owner);
    const adminWs = await connect(admin);
    const strangerWs = await connect(stranger);
    const id = await runTask(owner, p, { template_id: s.templateId });
    await waitForTask(owner, p, id);
    await new Promise((r) => setTimeout(r, 200));

    for (const { messages } of [ownerWs, adminWs]) {
      const logs = messages.filter((m) => m.type === 'log' && m.task_id === id).map((m) => (m as { output: string }).output);
      expect(logs).toEqual(expect.arrayContaining(['line-one', 'line-two']));
      expect(logs.indexOf('line-one')).toBeLessThan(logs.indexOf('line-two'));
      const statuses = messages.filter((m) => m.type === 'update' && m.task_id === id).map((m) => (m as { status?: string }).status);
      expect(statuses).toEqual(['waiting', 'starting', 'running', 'success']);
      const log = messages.find((m) => m.type === 'log')!;
      expect(log).toMatchObject({ type: 'log', project_id: p, task_id: id, time: expect.any(String) });
    }
    expect(strangerWs.messages).toEqual([]);
    for (const c of [ownerWs, adminWs, strangerWs]) c.ws.terminate();
  });

  it('refuses a connection without a session', async () => {
    await expect(t().app.injectWS('/api/ws')).rejects.toThrow(/401/);
  });
});
