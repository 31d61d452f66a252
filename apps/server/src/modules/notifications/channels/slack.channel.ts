import type { NotificationMessage } from '../notification-message.js';
import { postJson, type NotificationChannel } from './channel.js';

/** Slack incoming webhook: plain `{ text }`. */
export class SlackChannel implements NotificationChannel {
  readonly name = 'slack';

  constructor(private readonly url: string) {}

  async send(message: NotificationMessage): Promise<boolean> {
    await postJson(this.url, { text: message.text });
    return true;
  }
}
