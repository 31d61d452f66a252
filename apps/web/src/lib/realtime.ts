import {
  WS_CLOSE_SIGNED_OUT,
  WS_RECONNECT_MS,
  WS_SUBSCRIBE_QUERY,
  type WsClientMessage,
  type WsMessage,
} from '@gantry/contracts';
import { signalUnauthorized } from './api-client';
import { suspectUnreachable } from './server-status';

type Listener = (m: WsMessage) => void;

/** What a task's subscriber hears: its lines (`logs`, or legacy `log`) and the ranges it missed (`gap`). */
export type TaskLogMessage = Extract<WsMessage, { type: 'logs' | 'log' | 'gap' }>;
type TaskListener = (m: TaskLogMessage) => void;

/** The server accepts a handful of client messages per second; stay well under it. */
const MAX_SENDS_PER_SECOND = 4;

/**
 * The console's one WebSocket (/api/ws). It runs while signed in and reconnects 2 s after it
 * closes; listeners get task updates, and a task's subscribers get its log lines. The socket is
 * in subscribe mode from the start, so it carries lines only for the tasks someone is watching.
 */
class RealtimeClient {
  private ws: WebSocket | null = null;
  private running = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<Listener>();
  private readonly openListeners = new Set<() => void>();
  private readonly taskListeners = new Map<number, Set<TaskListener>>();
  /** Tasks the open socket has been told to send (reset on each new socket). */
  private readonly subscribed = new Set<number>();
  private syncTimer: ReturnType<typeof setTimeout> | undefined;
  private syncQueued = false;
  private readonly sentAt: number[] = [];

  start(): void {
    if (this.running) return;
    this.running = true;
    this.connect();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    this.ws?.close();
    this.ws = null;
    this.subscribed.clear();
  }

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * Receives a task's lines while subscribed (also across reconnects: the socket subscribes
   * again each time it opens). Answers the unsubscribe function.
   */
  subscribeTask(taskId: number, fn: TaskListener): () => void {
    let set = this.taskListeners.get(taskId);
    if (!set) {
      set = new Set();
      this.taskListeners.set(taskId, set);
    }
    set.add(fn);
    this.scheduleSync();
    return () => {
      const current = this.taskListeners.get(taskId);
      if (!current?.delete(fn) || current.size) return;
      this.taskListeners.delete(taskId);
      this.scheduleSync();
    };
  }

  /** Called each time the socket opens: what happened while it was not open was not heard. */
  onOpen(fn: () => void): () => void {
    this.openListeners.add(fn);
    return () => this.openListeners.delete(fn);
  }

  private connect(): void {
    const proto = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${window.location.host}/api/ws?${WS_SUBSCRIBE_QUERY}`);
    this.ws = ws;
    ws.onopen = () => {
      this.subscribed.clear();
      this.sync();
      this.openListeners.forEach((l) => l());
    };
    ws.onmessage = (e: MessageEvent<string>) => {
      let m: WsMessage;
      try {
        m = JSON.parse(e.data) as WsMessage;
      } catch {
        return;
      }
      this.listeners.forEach((l) => l(m));
      if (m.type === 'logs' || m.type === 'log' || m.type === 'gap') this.taskListeners.get(m.task_id)?.forEach((l) => l(m));
    };
    ws.onclose = (e: CloseEvent) => {
      if (this.ws === ws) this.ws = null;
      this.subscribed.clear();
      // The server closed the socket because its session ended: sign in again (the bridge starts
      // the socket again after), do not retry meanwhile.
      if (e.code === WS_CLOSE_SIGNED_OUT) {
        this.running = false;
        signalUnauthorized();
        return;
      }
      // Dropped: the server may be gone (a restart); the offline banner shows if so.
      if (this.running) suspectUnreachable();
      if (this.running) this.timer = setTimeout(() => this.connect(), WS_RECONNECT_MS);
    };
  }

  /**
   * Changes are sent once the current script is done (a microtask), so a dialog that subscribes,
   * unsubscribes and subscribes again in one render (StrictMode, a quick re-open) sends nothing at
   * all, and a subscription made before a long render goes out before it; `delay` waits for the rate.
   */
  private scheduleSync(delay = 0): void {
    if (this.syncTimer !== undefined || this.syncQueued) return;
    if (delay > 0) {
      this.syncTimer = setTimeout(() => {
        this.syncTimer = undefined;
        this.sync();
      }, delay);
      return;
    }
    this.syncQueued = true;
    queueMicrotask(() => {
      this.syncQueued = false;
      if (this.syncTimer === undefined) this.sync();
    });
  }

  /** Tells the open socket the difference between what it sends and what is wanted, within the rate. */
  private sync(): void {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    const changes: WsClientMessage[] = [];
    for (const id of this.taskListeners.keys()) if (!this.subscribed.has(id)) changes.push({ type: 'subscribe', task_id: id });
    for (const id of this.subscribed) if (!this.taskListeners.has(id)) changes.push({ type: 'unsubscribe', task_id: id });
    for (const change of changes) {
      const now = Date.now();
      while (this.sentAt.length && now - this.sentAt[0]! >= 1000) this.sentAt.shift();
      if (this.sentAt.length >= MAX_SENDS_PER_SECOND) {
        this.scheduleSync(1000 - (now - this.sentAt[0]!));
        return;
      }
      this.sentAt.push(now);
      ws.send(JSON.stringify(change));
      if (change.type === 'subscribe') this.subscribed.add(change.task_id);
      else this.subscribed.delete(change.task_id);
    }
  }
}

export const realtime = new RealtimeClient();
