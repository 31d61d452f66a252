import {
  isFinished,
  TASK_OUTPUT_MAX_PAGE_SIZE,
  WS_SUBSCRIBE_QUERY,
  wsMessageSchema,
  type TaskOutputPage,
  type WsMessage,
} from '@gantry/contracts';
import type { ApiClient } from './api-client.js';
import { connectWebSocket, type TextSocket } from './ws-client.js';

/** How often the status is read while the socket is up (a safety net for a missed update). */
const SOCKET_CHECK_MS = 15_000;
/** How often the log and status are read when the socket cannot be used. */
const POLL_MS = 1_000;

export interface FollowOptions {
  projectId: number;
  taskId: number;
  /** Each log line, in order, each exactly once. */
  onLine: (text: string) => void;
  /** Told once when the socket cannot be used and the log is read over HTTP instead. */
  onFallback?: (reason: string) => void;
}

/**
 * Streams a task's log until the task ends and returns its final status. Live lines come over
 * /api/ws (subscribed to this task, authenticated with the token); what the socket cannot give
 * (lines before it was open, a `gap` when it fell behind, the end) is read from the stored log by
 * sequence number, so every line is printed once and in order. Without a socket it polls.
 */
export async function followTask(client: ApiClient, o: FollowOptions): Promise<string> {
  const taskUrl = `/project/${o.projectId}/tasks/${o.taskId}`;
  let next = 0;
  const inbox: WsMessage[] = [];
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };

  let socket: TextSocket | null = null;
  let done = false;
  try {
    socket = await openSocket(client, o.taskId);
    socket.onMessage((text) => {
      const parsed = wsMessageSchema.safeParse(parseJson(text));
      if (parsed.success && parsed.data.task_id === o.taskId) {
        inbox.push(parsed.data);
        notify();
      }
    });
    socket.onClose(() => {
      socket = null;
      if (!done) o.onFallback?.('the live connection closed');
      notify();
    });
  } catch (err) {
    o.onFallback?.((err as Error).message);
  }

  /** Prints the stored lines from `next` on, page by page. */
  const drain = async () => {
    for (;;) {
      const page = await client.get<TaskOutputPage>(
        `${taskUrl}/output?from_seq=${next}&limit=${TASK_OUTPUT_MAX_PAGE_SIZE}`,
      );
      for (const line of page.lines) take(line.seq, line.output);
      if (page.lines.length < TASK_OUTPUT_MAX_PAGE_SIZE) return;
    }
  };
  const take = (seq: number, text: string) => {
    if (seq < next) return;
    next = seq + 1;
    o.onLine(text);
  };

  /**
   * A live line past the next expected one: the lines between are read from the stored log first.
   * They are stored in batches, so they may lag a moment behind the live ones.
   */
  const fillHole = async (seq: number) => {
    for (let tries = 0; seq > next && tries < 20; tries++) {
      if (tries) await new Promise((r) => setTimeout(r, 100));
      await drain();
    }
  };

  try {
    await drain();
    let checkStatus = true;
    for (;;) {
      if (checkStatus) {
        const task = await client.get<{ status: string }>(taskUrl);
        if (isFinished(task.status)) {
          await drain();
          return task.status;
        }
      }
      const timedOut = await new Promise<boolean>((resolve) => {
        if (inbox.length) return resolve(false);
        const timer = setTimeout(() => resolve(true), socket ? SOCKET_CHECK_MS : POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve(false);
        };
      });
      checkStatus = timedOut || !socket;
      if (!socket) await drain();
      for (const m of inbox.splice(0)) {
        if (m.type === 'logs') {
          await fillHole(m.from_seq);
          m.lines.forEach((line, i) => take(m.from_seq + i, line.output));
        } else if (m.type === 'log' && m.seq !== undefined) {
          await fillHole(m.seq);
          take(m.seq, m.output);
        } else if (m.type === 'gap') await drain();
        else if (m.type === 'update' && isFinished(m.status)) checkStatus = true;
      }
    }
  } finally {
    done = true;
    (socket as TextSocket | null)?.close();
  }
}

async function openSocket(client: ApiClient, taskId: number): Promise<TextSocket> {
  const url = new URL(`${client.base}/api/ws?${WS_SUBSCRIBE_QUERY}`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const socket = await connectWebSocket(url, { authorization: `Bearer ${client.profile.token}` });
  socket.send(JSON.stringify({ type: 'subscribe', task_id: taskId }));
  return socket;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
