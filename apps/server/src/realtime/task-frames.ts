import type { WsMessage } from '@gantry/contracts';
import type { TaskRecord } from '../engine/ports.js';

export type TaskUpdateFrame = Extract<WsMessage, { type: 'update' }>;
/** What an `update` frame tells of a task: its row, or a row with the status just stored. */
export type FrameSource = Pick<TaskRecord, 'id' | 'project_id' | 'status' | 'start' | 'end' | 'version'> & { template_id: number | null };

/**
 * The one place `update` frames are built, so every sender carries what Semaphore's frames carry
 * (start, end, version, template_id) and a console can patch a history row without a reload.
 */
export function taskUpdateFrame(task: FrameSource): TaskUpdateFrame {
  return {
    type: 'update',
    project_id: task.project_id,
    task_id: task.id,
    template_id: task.template_id ?? null,
    status: task.status,
    start: task.start ?? null,
    end: task.end ?? null,
    version: task.version ?? null,
  };
}
