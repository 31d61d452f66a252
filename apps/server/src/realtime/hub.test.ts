import type { WsMessage } from '@gantry/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from './bus.js';
import { CLOSE_TOO_SLOW, RealtimeHub, type HubSocket } from './hub.js';

/** A socket whose unsent backlog the test sets, as a client that stopped reading would leave it. */
class FakeSocket implements HubSocket {
  readyState = 1;
  bufferedAmount = 0;
  sent: string[] = [];
  closedWith: number | null = null;
  send(data: string): void {
    this.sent.push(data);
  }
  close(code: number): void {
    this.closedWith = code;
    this.readyState = 3;
  }
}

const update = (taskId: number): WsMessage =>
  ({ type: 'update', project_id: 1, task_id: taskId, status: 'running' }) as WsMessage;
const flush = () => new Promise((r) => setTimeout(r, 10));

describe('RealtimeHub', () => {
  let hub: RealtimeHub | undefined;
  afterEach(() => hub?.close());

  it('closes a client that does not read (4000) instead of buffering for it; others keep receiving', async () => {
    const bus = new EventBus();
    hub = new RealtimeHub(
      bus,
      async () => true,
      async () => ({ id: 1, admin: true }),
      { maxBufferedBytes: 1000 },
    );
    const slow = new FakeSocket();
    const fast = new FakeSocket();
    hub.add(slow, { id: 1, admin: true }, { kind: 'session', value: 'a' });
    hub.add(fast, { id: 2, admin: true }, { kind: 'session', value: 'b' });

    bus.publish(update(1));
    await flush();
    slow.bufferedAmount = 5000;
    bus.publish(update(2));
    bus.publish(update(3));
    await flush();

    expect(slow.sent).toHaveLength(1);
    expect(slow.closedWith).toBe(CLOSE_TOO_SLOW);
    expect(fast.sent).toHaveLength(3);
    expect(hub.size).toBe(1);
  });
});
