import { EventEmitter } from 'node:events';
import type { WsMessage } from '@gantry/contracts';
import type { LogLine } from '../engine/ports.js';

/** Stored lines of one task's log, in seq order: what the hub fans out to the sockets watching it. */
export interface LogBatch {
  project_id: number;
  task_id: number;
  lines: LogLine[];
}

/** Signals for a running task that may arrive from any request (confirm, reject, stop). */
export type TaskControl = { taskId: number; action: 'confirm' | 'reject' | 'stop' | 'kill' };

/** What a node reads again of a task before it believes a message from another node about it. */
export interface TaskFacts {
  project_id: number;
  status: string;
  stop_force?: number | null;
  /** The node running it, and what an `update` frame of it carries (read again after a bus outage). */
  node_id?: string | null;
  template_id?: number | null;
  start?: string | null;
  end?: string | null;
  version?: string | null;
}

/**
 * The signal a task's stored row asks of the node running it, if any: the requests that confirm,
 * reject or stop a task store it first, so the row, not a message, says what to do.
 */
export function storedControl(task: TaskFacts): TaskControl['action'] | null {
  switch (task.status) {
    case 'stopping':
      return task.stop_force === 1 ? 'kill' : 'stop';
    case 'confirmed':
      return 'confirm';
    case 'rejected':
      return 'reject';
    default:
      return null;
  }
}

/**
 * In-process event bus: task updates and log lines for the WebSocket hub, control signals for the
 * engine, user changes and dispatcher wake-ups. A single node (and SQLite) uses it as it is; when
 * several nodes share a PostgreSQL database, PgEventBus (pg-bus.ts) extends it to reach them.
 */
export class EventBus {
  private readonly emitter = new EventEmitter();
  private lineInterest: (taskId: number) => boolean = () => true;
  private watched: () => Iterable<number> = () => [];

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /** Whether the bus reaches the other nodes; the in-process bus has no others to reach. */
  isConnected(): boolean {
    return true;
  }

  /** Called again after the bus lost and regained the other nodes: re-read what may have been missed. */
  onReconnect(_fn: () => void): () => void {
    return () => undefined;
  }

  private readonly closers = new Set<() => void>();

  /** Runs `fn` when the bus closes (the server is closing): what lives as long as the bus stops with it. */
  onClose(fn: () => void): void {
    this.closers.add(fn);
  }

  async close(): Promise<void> {
    for (const fn of this.closers) fn();
    this.closers.clear();
  }

  /** Set by the socket hub: whether anyone on this node watches a task's lines. */
  setLineInterest(fn: (taskId: number) => boolean): void {
    this.lineInterest = fn;
  }

  protected wantsLines(taskId: number): boolean {
    return this.lineInterest(taskId);
  }

  /** Set by the socket hub: the tasks its subscribers watch, caught up after the bus was away. */
  setWatchedTasks(fn: () => Iterable<number>): void {
    this.watched = fn;
  }

  protected watchedTasks(): Iterable<number> {
    return this.watched();
  }

  publish(message: WsMessage): void {
    this.emitter.emit('ws', message);
  }

  onMessage(fn: (m: WsMessage) => void): () => void {
    this.emitter.on('ws', fn);
    return () => this.emitter.off('ws', fn);
  }

  /** Lines already stored (never before: a reader of the stored log must see every published line). */
  publishLines(batch: LogBatch): void {
    this.emitter.emit('lines', batch);
  }

  onLines(fn: (b: LogBatch) => void): () => void {
    this.emitter.on('lines', fn);
    return () => this.emitter.off('lines', fn);
  }

  control(signal: TaskControl): void {
    this.emitter.emit('control', signal);
  }

  onControl(fn: (s: TaskControl) => void): () => void {
    this.emitter.on('control', fn);
    return () => this.emitter.off('control', fn);
  }

  /**
   * Who a user is changed: sessions or tokens revoked, password, admin flag or project
   * memberships changed, user deleted. Open sockets of that user are re-checked at once.
   */
  userChanged(userId: number): void {
    this.emitter.emit('user', userId);
  }

  onUserChanged(fn: (userId: number) => void): () => void {
    this.emitter.on('user', fn);
    return () => this.emitter.off('user', fn);
  }

  /** Wakes the dispatcher: a task was queued or a slot freed. */
  kick(): void {
    this.emitter.emit('kick');
  }

  onKick(fn: () => void): () => void {
    this.emitter.on('kick', fn);
    return () => this.emitter.off('kick', fn);
  }
}
