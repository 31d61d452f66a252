import type { WsMessage } from '@gantry/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from './bus.js';
import { RealtimeHub, type HubSocket, type SocketUser } from './hub.js';

class FakeSocket implements HubSocket {
  readyState = 1;
  bufferedAmount = 0;
  sent: WsMessage[] = [];
  closedWith: number | null = null;
  send(data: string): void {
    this.sent.push(JSON.parse(data) as WsMessage);
  }
  close(code: number): void {
    this.closedWith = code;
    this.readyState = 3;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(fn: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn() && Date.now() < deadline) await sleep(10);
}
const line = (taskId: number, seq: number) => ({ project_id: 1, task_id: taskId, lines: [{ task_id: taskId, seq, time: 't', output: `line ${seq}` }] });

describe('the socket hub while the database is away', () => {
  let hub: RealtimeHub | undefined;
  afterEach(() => hub?.close());

  it('keeps a socket whose credential cannot be checked for the grace, then lets it go; a check that answers again resets it', async () => {
    let away = false;
    const validate = async (): Promise<SocketUser> => {
      if (away) throw new Error('database unreachable');
      return { id: 1, admin: false };
    };
    hub = new RealtimeHub(new EventBus(), async () => true, validate, { revalidateMs: 20, uncheckedGraceMs: 400 });
    const socket = new FakeSocket();
    hub.add(socket, { id: 1, admin: false }, { kind: 'session', value: 's' });
    away = true;
    await sleep(250);
    expect(socket.closedWith).toBeNull();
    away = false;
    await sleep(150);
    away = true;
    await sleep(250);
    // Failing for 250 ms again, counted from the new failure: still open.
    expect(socket.closedWith).toBeNull();
    await until(() => socket.closedWith !== null);
    expect(socket.closedWith).toBe(1011);
  });

  it('a membership lookup the database refused is tried again, and a refusal is not remembered', async () => {
    let failures = 2;
    const bus = new EventBus();
    hub = new RealtimeHub(
      bus,
      async () => {
        if (failures-- > 0) throw new Error('database unreachable');
        return true;
      },
      async () => ({ id: 1, admin: false }),
      { batchMs: 10 },
    );
    const socket = new FakeSocket();
    hub.add(socket, { id: 1, admin: false }, { kind: 'session', value: 's' }, true).subscribe(5);
    bus.publishLines(line(5, 1));
    await until(() => socket.sent.length > 0);
    expect(socket.sent.map((m) => m.type)).toEqual(['logs']);
  });

  it('a gap goes only to the sockets that take the task’s lines', async () => {
    const bus = new EventBus();
    hub = new RealtimeHub(bus, async () => true, async () => ({ id: 1, admin: true }), { batchMs: 10 });
    const watcher = new FakeSocket();
    const other = new FakeSocket();
    const legacy = new FakeSocket();
    hub.add(watcher, { id: 1, admin: true }, { kind: 'session', value: 's' }, true).subscribe(5);
    hub.add(other, { id: 1, admin: true }, { kind: 'session', value: 's' }, true).subscribe(6);
    hub.add(legacy, { id: 1, admin: true }, { kind: 'session', value: 's' });
    const gap: WsMessage = { type: 'gap', project_id: 1, task_id: 5, from_seq: 3, to_seq: 9 };
    bus.publish(gap);
    await sleep(20);
    expect(watcher.sent).toEqual([gap]);
    expect(legacy.sent).toEqual([gap]);
    expect(other.sent).toEqual([]);
  });
});
