import { WS_CLOSE_SIGNED_OUT, WS_RECONNECT_MS, type WsMessage } from '@gantry/contracts';
import { signalUnauthorized } from './api-client';

type Listener = (m: WsMessage) => void;

/**
 * The console's one WebSocket (/api/ws). It runs while signed in and reconnects 2 s after it
 * closes; listeners get task updates and log lines.
 */
class RealtimeClient {
  private ws: WebSocket | null = null;
  private running = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<Listener>();
  private readonly openListeners = new Set<() => void>();

  start(): void {
    if (this.running) return;
    this.running = true;
    this.connect();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.ws?.close();
    this.ws = null;
  }

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Called each time the socket opens: what happened while it was not open was not heard. */
  onOpen(fn: () => void): () => void {
    this.openListeners.add(fn);
    return () => this.openListeners.delete(fn);
  }

  private connect(): void {
    const proto = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${window.location.host}/api/ws`);
    this.ws = ws;
    ws.onopen = () => this.openListeners.forEach((l) => l());
    ws.onmessage = (e: MessageEvent<string>) => {
      let m: WsMessage;
      try {
        m = JSON.parse(e.data) as WsMessage;
      } catch {
        return;
      }
      this.listeners.forEach((l) => l(m));
    };
    ws.onclose = (e: CloseEvent) => {
      if (this.ws === ws) this.ws = null;
      // The server closed the socket because its session ended: go to sign-in, do not retry.
      if (e.code === WS_CLOSE_SIGNED_OUT) {
        this.running = false;
        signalUnauthorized();
        return;
      }
      if (this.running) this.timer = setTimeout(() => this.connect(), WS_RECONNECT_MS);
    };
  }
}

export const realtime = new RealtimeClient();
