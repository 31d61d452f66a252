import { isFinished, type WsMessage } from '@gantry/contracts';
import type { LogLine } from '../engine/ports.js';
import type { BusDropReason } from './bus-auth.js';
import type { LogBatch, TaskFacts } from './bus.js';
import { taskUpdateFrame, type TaskUpdateFrame } from './task-frames.js';

export interface BusInboxOptions {
  /** This node: its own tasks' events never travel the bus, so nothing of theirs is caught up. */
  nodeId: string;
  readLines(taskId: number, fromSeq: number, toSeq: number, limit: number): Promise<LogLine[]>;
  readTask(taskId: number): Promise<TaskFacts | null | undefined>;
  /** The highest stored seq of a task: where a watcher that heard nothing yet starts. */
  lastSeq?(taskId: number): Promise<number | null>;
  /** Whether anyone here watches a task's lines, and which tasks subscribers here watch. */
  wantsLines(taskId: number): boolean;
  watchedTasks(): Iterable<number>;
  /** Hand lines and messages to this node's listeners (the socket hub). */
  emitLines(batch: LogBatch): void;
  emitMessage(m: WsMessage): void;
  drop(reason: BusDropReason): void;
  onError?(message: string): void;
  /** Waits between tries of a read the database refused (default 200, 500, 1000 ms). */
  retryMs?: number[];
}

/** A task another node runs, as this node heard of it. */
interface Incoming {
  /** The last seq handed to the listeners here (or passed over while nobody watched); null before the first. */
  delivered: number | null;
  /** The highest seq announced. */
  heard: number;
  /** The status of the last update handed on. */
  status?: string;
}

const READ_PAGE = 5000;
/** Past any seq (a 32-bit integer column on every engine). */
const TO_END = 2_147_483_647;
/** Tasks remembered (their project, or that they ended); a task never changes project. */
const CACHE = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

/**
 * What this node hears of other nodes' tasks, handed on in order: a task's events wait for the
 * line reads announced before them, so a console never sees a final status before the last lines.
 *
 * Nothing heard is trusted further than the database: lines are read from the table, an update
 * goes to the project the task's row names. An announcement says which lines are stored; they are
 * read from after the last one handed on here, so announcements missed while this node's bus was
 * away are made good by the next one. After this node's bus reconnects, every task it tracks or a
 * subscriber here watches is caught up from the database (its lines after the last one handed on,
 * then its status as stored), whether or not the other node's own resend arrives. A read the
 * database keeps refusing becomes a `gap` for the range, which the console reads over HTTP later.
 */
export class BusInbox {
  private readonly tasks = new Map<number, Incoming>();
  private readonly ended = new Map<number, string>();
  private readonly projects = new Map<number, number>();
  private readonly chains = new Map<number, Promise<void>>();
  private readonly retryMs: number[];

  constructor(private readonly o: BusInboxOptions) {
    this.retryMs = o.retryMs ?? [200, 500, 1000];
  }

  /** Another node stored lines first..last of a task. */
  announced(taskId: number, first: number, last: number): void {
    this.inOrder(taskId, () => this.readAnnounced(taskId, first, last));
  }

  /** Another node's update of a task, passed on once its project is the row's. */
  updated(frame: TaskUpdateFrame): void {
    this.inOrder(frame.task_id, async () => {
      if ((await this.projectOf(frame.task_id)) !== frame.project_id) return this.o.drop('task');
      this.handOn(frame);
    });
  }

  /** This node's bus was away: everything it may have missed is read again. */
  reconnected(): void {
    const ids = new Set([...this.tasks.keys(), ...this.o.watchedTasks()]);
    for (const id of ids) this.inOrder(id, () => this.catchUp(id));
  }

  /** The project of a task as stored, or null when there is no such task. */
  async projectOf(taskId: number): Promise<number | null> {
    const known = this.projects.get(taskId);
    if (known !== undefined) return known;
    const task = await this.o.readTask(taskId);
    if (!task) return null;
    remember(this.projects, taskId, task.project_id);
    return task.project_id;
  }

  private handOn(frame: TaskUpdateFrame): void {
    // Already told, by a catch-up that read the final status before the other node's resend came.
    if (isFinished(frame.status) && this.ended.get(frame.task_id) === frame.status) return;
    this.o.emitMessage(frame);
    if (isFinished(frame.status)) {
      this.tasks.delete(frame.task_id);
      remember(this.ended, frame.task_id, frame.status);
    } else {
      this.track(frame.task_id).status = frame.status;
    }
  }

  private track(taskId: number): Incoming {
    let t = this.tasks.get(taskId);
    if (!t) {
      if (this.tasks.size >= CACHE) this.tasks.delete(this.tasks.keys().next().value!);
      t = { delivered: null, heard: 0 };
      this.tasks.set(taskId, t);
    }
    return t;
  }

  /** Runs `fn` after every earlier event of the task from other nodes. */
  private inOrder(taskId: number, fn: () => Promise<void>): void {
    const next = (this.chains.get(taskId) ?? Promise.resolve()).then(fn).catch((err: unknown) => this.o.onError?.(`bus: ${(err as Error).message}`));
    this.chains.set(taskId, next);
    void next.then(() => {
      if (this.chains.get(taskId) === next) this.chains.delete(taskId);
    });
  }

  private async readAnnounced(taskId: number, first: number, last: number): Promise<void> {
    const t = this.track(taskId);
    t.heard = Math.max(t.heard, last);
    t.delivered ??= first - 1;
    if (last <= t.delivered) return;
    // Nobody here watches the task: nothing to read (a later watcher loads the stored log).
    if (!this.o.wantsLines(taskId)) {
      t.delivered = last;
      return;
    }
    await this.deliver(taskId, t, last);
  }

  /** Hands on the task's stored lines after the last one handed on, up to `upTo`. */
  private async deliver(taskId: number, t: Incoming, upTo: number): Promise<void> {
    // The lines go to the watchers of the project the task's row names, never one a message names.
    const projectId = await this.retried(() => this.projectOf(taskId));
    if (projectId === null) {
      this.tasks.delete(taskId);
      return this.o.drop('task');
    }
    let from = (t.delivered ?? 0) + 1;
    while (from <= upTo) {
      let lines: LogLine[];
      try {
        lines = await this.retried(() => this.o.readLines(taskId, from, upTo, READ_PAGE));
      } catch (err) {
        // Stored but out of reach: the console reads the range over HTTP once it can.
        const to = upTo === TO_END ? t.heard : upTo;
        if (to >= from) this.o.emitMessage({ type: 'gap', project_id: projectId, task_id: taskId, from_seq: from, to_seq: to });
        t.delivered = Math.max(from - 1, to);
        this.o.onError?.(`bus: lines of task ${taskId} could not be read: ${(err as Error).message}`);
        return;
      }
      if (lines.length === 0) break;
      this.o.emitLines({ project_id: projectId, task_id: taskId, lines });
      t.delivered = lines[lines.length - 1]!.seq;
      from = t.delivered + 1;
    }
    if (upTo !== TO_END) t.delivered = Math.max(t.delivered ?? 0, upTo);
  }

  /** After this node's bus was away: the task's lines after the last handed on, then its status, as stored. */
  private async catchUp(taskId: number): Promise<void> {
    // The status first: once it is final, every line before it is stored and read below.
    const row = await this.retried(() => this.o.readTask(taskId));
    if (!row || row.node_id === this.o.nodeId) {
      this.tasks.delete(taskId);
      return;
    }
    remember(this.projects, taskId, row.project_id);
    const t = this.track(taskId);
    const lastSeq = this.o.lastSeq?.bind(this.o);
    if (this.o.wantsLines(taskId) && (t.delivered !== null || lastSeq)) {
      // Nothing handed on yet here: the newest page; a console reads what is before it itself.
      t.delivered ??= Math.max(0, ((await this.retried(() => lastSeq!(taskId))) ?? 0) - READ_PAGE);
      await this.deliver(taskId, t, TO_END);
    }
    if (row.status !== t.status) {
      this.handOn(
        taskUpdateFrame({
          id: taskId,
          project_id: row.project_id,
          template_id: row.template_id ?? null,
          status: row.status,
          start: row.start ?? null,
          end: row.end ?? null,
          version: row.version ?? null,
        }),
      );
    }
  }

  /** A read, tried again a few times while the database refuses it (the bus came back first). */
  private async retried<T>(read: () => Promise<T>): Promise<T> {
    for (let i = 0; ; i++) {
      try {
        return await read();
      } catch (err) {
        if (i >= this.retryMs.length) throw err;
        await sleep(this.retryMs[i]!);
      }
    }
  }
}

function remember<V>(map: Map<number, V>, key: number, value: V): void {
  if (!map.has(key) && map.size >= CACHE) map.delete(map.keys().next().value!);
  map.set(key, value);
}
