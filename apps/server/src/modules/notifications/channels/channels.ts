import type { NotificationsConfig } from '../../../config/config.js';
import type { NotificationChannel } from './channel.js';
import { EmailChannel } from './email.channel.js';
import { SlackChannel } from './slack.channel.js';
import { TeamsChannel } from './teams.channel.js';
import { TelegramChannel } from './telegram.channel.js';
import { WebhookChannel } from './webhook.channel.js';

/** The channels the configuration turns on. */
export function createChannels(config: NotificationsConfig): NotificationChannel[] {
  const channels: NotificationChannel[] = [];
  if (config.email) channels.push(new EmailChannel(config.email));
  if (config.slackUrl) channels.push(new SlackChannel(config.slackUrl));
  if (config.telegram) channels.push(new TelegramChannel(config.telegram));
  if (config.teamsUrl) channels.push(new TeamsChannel(config.teamsUrl));
  if (config.webhookUrl) channels.push(new WebhookChannel(config.webhookUrl));
  return channels;
}

/** Values that must never appear in an error or an activity event. */
export function channelSecrets(config: NotificationsConfig): string[] {
  return [config.email?.password, config.slackUrl, config.telegram?.token, config.teamsUrl, config.webhookUrl].filter(
    (s): s is string => !!s,
  );
}
