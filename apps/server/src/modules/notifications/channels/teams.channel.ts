import type { NotificationMessage } from '../notification-message.js';
import { postJson, type NotificationChannel } from './channel.js';

/** Microsoft Teams incoming webhook: a legacy MessageCard, which every Teams connector accepts. */
export class TeamsChannel implements NotificationChannel {
  readonly name = 'teams';

  constructor(private readonly url: string) {}

  async send(message: NotificationMessage): Promise<boolean> {
    await postJson(this.url, {
      '@type': 'MessageCard',
      '@context': 'http://schema.org/extensions',
      summary: message.title,
      title: message.title,
      // Teams reads the text as Markdown: two spaces before a newline keep the lines apart.
      text: message.text.split('\n').slice(1).join('  \n'),
      themeColor: message.color,
    });
    return true;
  }
}
