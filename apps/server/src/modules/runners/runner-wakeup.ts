import type { EventsService } from '../events/events.service.js';
import type { RunnersRepository } from './runners.repository.js';

/** What a runner's webhook receives when a task it could take starts waiting. */
export interface RunnerWakeupBody {
  event: 'task_waiting';
  runner_id: number;
  project_id: number;
  template_id: number;
  task_id: number;
}

/** Sends one JSON POST; rejects on a network failure or a non-2xx answer (never with the URL). */
export type WakeupPost = (url: string, body: RunnerWakeupBody) => Promise<void>;

/**
 * Calls the webhook of every active runner that could take a newly waiting task, so runners that
 * are started on demand (autoscaling, a CI job) can be woken up. Fire and forget: a failed call
 * leaves an activity line without the URL, which may carry a token.
 */
export class RunnerWakeup {
  constructor(
    private readonly runners: Pick<RunnersRepository, 'wakeable'>,
    private readonly events: Pick<EventsService, 'record'>,
    private readonly post: WakeupPost = httpPost,
  ) {}

  async taskWaiting(task: { task_id: number; project_id: number; template_id: number }): Promise<number> {
    const targets = await this.runners.wakeable({ project_id: task.project_id, template_id: task.template_id });
    await Promise.all(
      targets.map((r) =>
        this.post(r.webhook, { event: 'task_waiting', runner_id: r.id, project_id: task.project_id, template_id: task.template_id, task_id: task.task_id }).catch((e: unknown) =>
          this.events
            .record({ projectId: task.project_id, userId: null, objectType: 'runner', objectId: r.id, description: `Webhook of runner #${r.id} failed: ${(e as Error).message}` })
            .catch(() => undefined),
        ),
      ),
    );
    return targets.length;
  }
}

async function httpPost(url: string, body: RunnerWakeupBody): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  } catch (e) {
    // fetch errors may quote the URL; keep only their kind.
    throw new Error((e as Error).name === 'TimeoutError' ? 'timed out' : 'could not connect');
  }
  await res.body?.cancel();
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
}
