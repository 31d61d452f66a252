import { SESSION_COOKIE, WS_SUBSCRIBE_QUERY, type TaskOutputPage, type WsMessage } from '@gantry/contracts';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../test/harness.js';
import { runTask, setupTemplate, waitForTask } from '../test/tasks.js';

interface ClientSocket {
  on(event: 'open', fn: () => void): void;
  on(event: 'message', fn: (data: Buffer) => void): void;
  on(event: 'error', fn: (err: Error) => void): void;
  send(data: string): void;
  terminate(): void;
  /** The TCP socket under the WebSocket: pausing it stops reading, as a busy browser tab would. */
  _socket: Socket;
}
const WebSocket = createRequire(import.meta.url)('ws') as new (url: string, options: { headers: Record<string, string> }) => ClientSocket;

const LINES = 200_000;
// ~100 bytes a line on the wire: 20 MB in all, more than the kernel's socket buffers hold for a client that does not read.
const SCRIPT = `sleep 0.5\nseq -f 'line %06g of the two hundred thousand lines this task prints' 1 ${LINES}\n`;

/** What a client has of a task's log: seq -> text, and the gaps it was told of. */
class Watcher {
  readonly lines = new Map<number, string>();
  readonly gaps: Array<{ from: number; to: number }> = [];
  readonly order: number[] = [];
  messages = 0;
  constructor(
    readonly ws: ClientSocket,
    private readonly taskId: () => number,
  ) {
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as WsMessage;
      if (m.task_id !== this.taskId()) return;
      if (m.type === 'logs') {
        this.messages += 1;
        m.lines.forEach((l, i) => {
          this.lines.set(m.from_seq + i, l.output);
          this.order.push(m.from_seq + i);
        });
      } else if (m.type === 'gap') this.gaps.push({ from: m.from_seq, to: m.to_seq });
    });
  }
}

describe.each(engines)('live log of a 200,000-line task ($name)', (engine) => {
  const t = useTestApp(engine);
  let base = '';
  let owner: Caller;
  beforeAll(async () => {
    await t().app.listen({ port: 0, host: '127.0.0.1' });
    base = `127.0.0.1:${(t().app.server.address() as AddressInfo).port}`;
    owner = await signedInUser(t(), { admin: true });
  });

  const open = (taskId: () => number) =>
    new Promise<Watcher>((resolve, reject) => {
      const ws = new WebSocket(`ws://${base}/api/ws?${WS_SUBSCRIBE_QUERY}`, { headers: { cookie: `${SESSION_COOKIE}=${owner.cookie}` } });
      const w = new Watcher(ws, taskId);
      ws.on('open', () => resolve(w));
      ws.on('error', reject);
    });

  it('the reading socket gets every line in order (or is told of a gap); the slow one gets a gap, reads it over HTTP and then has every line; memory stays bounded', { timeout: 120_000 }, async () => {
    const projectId = await createProject(owner);
    const { templateId } = await setupTemplate(owner, projectId, gitRepo({ 'run.sh': SCRIPT }), { app: 'bash', playbook: 'run.sh' });
    let id = 0;
    const fast = await open(() => id);
    const slow = await open(() => id);
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 10);

    // The slow client stops reading before the first line, as a tab in the background would.
    slow.ws._socket.pause();
    id = await runTask(owner, projectId, { template_id: templateId });
    fast.ws.send(JSON.stringify({ type: 'subscribe', task_id: id }));
    slow.ws.send(JSON.stringify({ type: 'subscribe', task_id: id }));
    const task = await waitForTask(owner, projectId, id, undefined, 90_000);
    expect(task.status).toBe('success');
    await new Promise((r) => setTimeout(r, 300));
    clearInterval(sampler);
    slow.ws._socket.resume();

    const last = (await owner.get(`/api/project/${projectId}/tasks/${id}/output?tail=1&limit=1`)).json<TaskOutputPage>().last_seq!;
    expect(last).toBeGreaterThanOrEqual(LINES);
    const all = Array.from({ length: last }, (_, i) => i + 1);

    // Fast: every line from its subscription on, in order, in far fewer messages than lines. (Gantry's
    // first lines may go out before the subscription arrives: a console loads them over HTTP.) This
    // client reads in the server's own process: on a loaded machine it too may fall 1 MB behind for a
    // while, and then it is told of the gap like the slow one, never left without a word.
    const slowLive = slow.lines.size;
    const firstPrinted = all.find((seq) => fast.lines.get(seq)?.startsWith('line 000001'))!;
    expect(fast.order[0]).toBeLessThan(firstPrinted);
    const told = (seq: number) => fast.gaps.some((g) => g.from <= seq && seq <= g.to);
    expect(fast.order.every((seq, i) => i === 0 || seq > fast.order[i - 1]!)).toBe(true);
    expect(all.slice(fast.order[0]! - 1).filter((seq) => !fast.lines.has(seq) && !told(seq))).toEqual([]);
    if (fast.gaps.length === 0) expect(fast.order).toEqual(all.slice(fast.order[0]! - 1));
    expect(fast.lines.size).toBeGreaterThan(slowLive);
    expect(fast.messages).toBeLessThan(LINES / 50);

    // Slow: once it reads again, it hears of what it missed.
    const until = Date.now() + 10_000;
    while (slow.gaps.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(slow.gaps.length).toBeGreaterThan(0);
    expect(slow.lines.size).toBeLessThan(last);
    const missed = [...slow.gaps, { from: 1, to: Math.min(...slow.lines.keys()) - 1 }];
    for (const g of missed) {
      for (let from = g.from; from <= g.to; ) {
        const page = (await owner.get(`/api/project/${projectId}/tasks/${id}/output?from_seq=${from}&to_seq=${g.to}&limit=10000`)).json<TaskOutputPage>();
        for (const l of page.lines) slow.lines.set(l.seq, l.output);
        from = page.lines.at(-1)!.seq + 1;
      }
    }
    expect([...slow.lines.keys()].sort((a, b) => a - b)).toEqual(all);
    expect(slow.lines.get(firstPrinted + LINES - 1)).toMatch(/^line 200000 of/);

    // Neither the slow socket nor 20 MB of lines piled up in the server.
    expect(heapPeak - heapBefore).toBeLessThan(150 * 1024 * 1024);
    fast.ws.terminate();
    slow.ws.terminate();
  });
});
