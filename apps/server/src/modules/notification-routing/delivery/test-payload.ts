import { DeliveryError, type NotificationPayload, type OpenDestination } from '../notification-payload.js';

/** A payload as the router builds it, for tests. */
export function samplePayload(overrides: Partial<NotificationPayload> = {}): NotificationPayload {
  return {
    schema: 'gantry.notification.v1',
    id: 'delivery-1',
    event: 'task_failed',
    time: '2026-01-02T03:04:05.000Z',
    project: { id: 7, name: 'Shop' },
    template: { id: 12, name: 'Deploy' },
    task: {
      id: 99,
      status: 'error',
      created: '2026-01-02T03:00:00.000Z',
      start: '2026-01-02T03:00:01.000Z',
      end: '2026-01-02T03:04:05.000Z',
      author: 'alice',
      version: null,
      branch: 'main',
      commit: 'abc123',
      schedule_id: null,
      url: 'https://gantry.example/project/7/templates/12?t=99',
    },
    plan_summary: null,
    drift: null,
    runner: null,
    digest: null,
    running_minutes: null,
    approval: null,
    message: {
      title: 'Task #99 of Deploy failed',
      text: 'Task #99 of Deploy failed\nProject Shop, by alice\nhttps://gantry.example/project/7/templates/12?t=99',
      url: 'https://gantry.example/project/7/templates/12?t=99',
      color: 'D9534F',
    },
    ...overrides,
  };
}

/** A destination for tests. */
export function destination(
  kind: OpenDestination['kind'],
  config: Record<string, unknown>,
  secrets: Record<string, string>,
): OpenDestination {
  return { id: 3, projectId: 7, name: `My ${kind}`, kind, config, secrets };
}

/** The DeliveryError a send fails with (any other outcome fails the test). */
export async function failure(run: Promise<unknown>): Promise<DeliveryError> {
  try {
    await run;
  } catch (e) {
    if (e instanceof DeliveryError) return e;
    throw e;
  }
  throw new Error('expected a DeliveryError');
}
