import type { NotificationTestResult } from '@gantry/contracts';
import { maskSecrets } from '../../../platform/mask-secrets.js';
import { DeliveryError, type NotificationPayload, type OpenDestination } from '../notification-payload.js';
import { sendNotification, type SenderContext } from './senders/index.js';

const RESPONSE_CHARS = 500;

/**
 * "Send test": a test notification sent now (not queued) and what the receiver answered, for the
 * console. Never throws; no secret in the answer.
 */
export async function sendTest(
  dest: OpenDestination,
  ctx: SenderContext,
  project: { id: number; name: string } | null,
): Promise<NotificationTestResult> {
  const now = ctx.now();
  const payload = testPayload(dest, project, now);
  const secrets = Object.values(dest.secrets);
  try {
    const r = await sendNotification(dest, payload, ctx);
    return {
      ok: true,
      http_status: r.httpStatus,
      response: maskSecrets(r.response, secrets).slice(0, RESPONSE_CHARS),
      error: null,
    };
  } catch (e) {
    const error = maskSecrets(
      e instanceof DeliveryError ? e.message : `Unexpected error: ${(e as Error)?.message ?? String(e)}`,
      secrets,
    ).slice(0, RESPONSE_CHARS);
    return { ok: false, http_status: e instanceof DeliveryError ? e.httpStatus : null, response: error, error };
  }
}

function testPayload(
  dest: OpenDestination,
  project: { id: number; name: string } | null,
  now: Date,
): NotificationPayload {
  const title = 'Test notification from Gantry';
  const where = project ? ` of project ${project.name}` : '';
  return {
    schema: 'gantry.notification.v1',
    id: `test-${dest.id}-${now.getTime()}`,
    event: 'test',
    time: now.toISOString(),
    project,
    template: null,
    task: null,
    plan_summary: null,
    drift: null,
    runner: null,
    digest: null,
    running_minutes: null,
    approval: null,
    message: {
      title,
      text: `${title}\nThis is a test of the destination "${dest.name}"${where}. If you read this, it works.`,
      url: '',
      color: '5BC0DE',
    },
  };
}
