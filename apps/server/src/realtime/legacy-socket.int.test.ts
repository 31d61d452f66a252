import {
  SESSION_COOKIE,
  TASK_OUTPUT_MAX_PAGE_SIZE,
  isFinished,
  type TaskOutputPage,
  type WsMessage,
} from '@gantry/contracts';
import { createRequire } from 'node:module';
import { Socket, type AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../test/harness.js';
import { runTask, setupTemplate, waitForTask } from '../test/tasks.js';

interface ClientSocket {
  on(event: 'open', fn: () => void): void;
  on(event: 'message', fn: (data: Buffer) => void): void;
  on(event: 'error', fn: (err: Error) => void): void;
  terminate(): void;
}
const WebSocket = createRequire(import.meta.url)('ws') as new (
  url: string,
  options: { headers: Record<string, string> },
) => ClientSocket;

const LINES = 20_000;

/**
 * Semaphore's console on a real connection (/api/ws, never subscribed: per-line `log` frames)
 * watching a task that prints many lines fast. The server's writes to that connection are
 * counted where they reach its TCP socket.
 */
describe.each(engines)('legacy socket under a fast log ($name)', (engine) => {
  const t = useTestApp(engine);
  let port = 0;
  let owner: Caller;
  beforeAll(async () => {
    await t().app.listen({ port: 0, host: '127.0.0.1' });
    port = (t().app.server.address() as AddressInfo).port;
    owner = await signedInUser(t(), { admin: true });
  });
  const write = Socket.prototype.write;
  afterEach(() => {
    Socket.prototype.write = write;
  });

  it('gets every line once, in order, in at most one write per 50 ms (plus the status updates)', async () => {
    const p = await createProject(owner);
    const { templateId } = await setupTemplate(owner, p, gitRepo({ 'run.sh': `seq -f 'line %g' 1 ${LINES}\n` }), {
      playbook: 'run.sh',
    });
    let writes = 0;
    // The server's side of a connection is the socket whose own port is the server's.
    Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
      if (this.localPort === port) writes += 1;
      return write.apply(this, args);
    } as Socket['write'];

    let taskId = 0;
    const early: WsMessage[] = [];
    const got = new Map<number, string>();
    const order: number[] = [];
    const gaps: Array<[number, number]> = [];
    let finished = (): void => undefined;
    const done = new Promise<void>((r) => (finished = r));
    const take = (m: WsMessage) => {
      if (m.task_id !== taskId) return;
      if (m.type === 'log') {
        got.set(m.seq!, m.output);
        order.push(m.seq!);
      } else if (m.type === 'gap') gaps.push([m.from_seq, m.to_seq]);
      else if (m.type === 'update' && isFinished(m.status)) finished();
    };
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/ws`, {
      headers: { cookie: `${SESSION_COOKIE}=${owner.cookie}` },
    });
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as WsMessage;
      if (taskId === 0) early.push(m);
      else take(m);
    });
    await new Promise<void>((resolve, reject) => (ws.on('open', resolve), ws.on('error', reject)));

    const t0 = Date.now();
    taskId = await runTask(owner, p, { template_id: templateId });
    early.splice(0).forEach(take);
    await done;
    const span = Date.now() - t0;
    Socket.prototype.write = write;
    ws.terminate();
    expect((await waitForTask(owner, p, taskId)).status).toBe('success');

    // Every stored line reached the socket once, in order, or was told as a gap (a socket that fell behind).
    const stored: TaskOutputPage['lines'] = [];
    for (let from = 1; ;) {
      const page = (
        await owner.get(`/api/project/${p}/tasks/${taskId}/output?from_seq=${from}&limit=${TASK_OUTPUT_MAX_PAGE_SIZE}`)
      ).json<TaskOutputPage>();
      stored.push(...page.lines);
      if (page.lines.length < TASK_OUTPUT_MAX_PAGE_SIZE) break;
      from = page.lines.at(-1)!.seq + 1;
    }
    expect(stored.filter((l) => l.output.startsWith('line '))).toHaveLength(LINES);
    const told = new Set(gaps.flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, i) => from + i)));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(new Set(order).size).toBe(order.length);
    expect(stored.filter((l) => !got.has(l.seq) && !told.has(l.seq))).toEqual([]);
    for (const l of stored) if (got.has(l.seq)) expect(got.get(l.seq)).toBe(l.output);
    expect(got.size).toBeGreaterThan(0);

    // One line a frame as Semaphore's console expects, but not a write per line: per-line sends
    // made two writes a line (40,000 here). Updates are sent on their own (starting, running, success).
    expect(writes).toBeLessThanOrEqual(Math.ceil(span / 50) + 20);
  });
});
