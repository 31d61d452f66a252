import { afterEach, describe, expect, it } from 'vitest';
import { BusOutbox, type OutboxSend, type UpdateFrame } from './bus-outbox.js';

const frame = (taskId: number, status: string): UpdateFrame => ({ type: 'update', project_id: 1, task_id: taskId, template_id: 1, status, start: null, end: null, version: null });

/** A connection the test takes down: what it is handed, and whether the database takes it. */
function connection() {
  const sent: string[] = [];
  const state = { up: true };
  const send: OutboxSend = (m, ok, lost) => {
    if (!state.up) return lost();
    sent.push(m.kind === 'lines' ? `lines ${m.taskId}:${m.first}-${m.last}` : `update ${m.frame.task_id}:${m.frame.status}`);
    ok();
  };
  return { sent, state, send };
}

describe('what a node told the other nodes of its tasks, and sends again after an outage', () => {
  let outbox: BusOutbox | undefined;
  afterEach(() => outbox?.close());

  it('announces stored lines at once when idle, then at most once per interval, and before an update', async () => {
    const c = connection();
    outbox = new BusOutbox(c.send, 30);
    outbox.stored(7, 1, 10);
    outbox.stored(7, 11, 20);
    outbox.stored(7, 21, 25);
    expect(c.sent).toEqual(['lines 7:1-10']);
    await new Promise((r) => setTimeout(r, 50));
    expect(c.sent).toEqual(['lines 7:1-10', 'lines 7:11-25']);
    outbox.stored(7, 26, 30);
    outbox.update(frame(7, 'success'));
    expect(c.sent.slice(2)).toEqual(['lines 7:26-30', 'update 7:success']);
    expect(outbox.owedTasks).toBe(0);
  });

  it('sends again what was lost, from the last announcement taken, each task’s lines before its latest update', () => {
    const c = connection();
    outbox = new BusOutbox(c.send, 0);
    outbox.stored(1, 1, 10);
    outbox.stored(2, 1, 5);
    c.state.up = false;
    outbox.stored(1, 11, 20);
    outbox.update(frame(1, 'running'));
    outbox.stored(1, 21, 30);
    outbox.update(frame(1, 'success'));
    // An update of a task this node does not run (a stop request made here), and nothing for task 2.
    outbox.update(frame(3, 'stopping'));
    expect(outbox.owedTasks).toBe(2);
    c.state.up = true;
    c.sent.length = 0;
    outbox.resend();
    expect(c.sent).toEqual(['lines 1:11-30', 'update 1:success', 'update 3:stopping']);
    expect(outbox.owedTasks).toBe(0);
    // Everything taken: nothing is sent again at the next reconnect.
    c.sent.length = 0;
    outbox.resend();
    expect(c.sent).toEqual([]);
  });

  it('a task first heard of after an earlier entry was settled starts from its first new line', () => {
    const c = connection();
    outbox = new BusOutbox(c.send, 0);
    outbox.stored(4, 1, 3);
    outbox.update(frame(4, 'success'));
    // A line stored after the final update (an outage note): announced alone.
    outbox.stored(4, 4, 4);
    expect(c.sent).toEqual(['lines 4:1-3', 'update 4:success', 'lines 4:4-4']);
  });
});
