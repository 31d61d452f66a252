import type { NotificationKind } from '@gantry/contracts';
import type { NotificationPayload, OpenDestination, SendResult } from '../../notification-payload.js';
import { sendDiscord } from './discord.sender.js';
import { sendEmail } from './email.sender.js';
import { sendGotify } from './gotify.sender.js';
import { sendMattermost } from './mattermost.sender.js';
import { sendNtfy } from './ntfy.sender.js';
import { sendPagerDuty } from './pagerduty.sender.js';
import type { Sender, SenderContext } from './sender.js';
import { sendSlack } from './slack.sender.js';
import { sendTeams } from './teams.sender.js';
import { sendTelegram } from './telegram.sender.js';
import { sendWebhook } from './webhook.sender.js';

export type { SenderContext } from './sender.js';

const SENDERS: Record<NotificationKind, Sender> = {
  email: sendEmail,
  slack: sendSlack,
  teams: sendTeams,
  telegram: sendTelegram,
  discord: sendDiscord,
  mattermost: sendMattermost,
  gotify: sendGotify,
  ntfy: sendNtfy,
  pagerduty: sendPagerDuty,
  webhook: sendWebhook,
};

/**
 * Sends one notification to one destination now; rejects with a DeliveryError (masked) on failure,
 * also when a sender refuses its configuration before any request.
 */
export async function sendNotification(
  dest: OpenDestination,
  p: NotificationPayload,
  ctx: SenderContext,
): Promise<SendResult> {
  return await SENDERS[dest.kind](dest, p, ctx);
}
