import type { NotificationMessage } from '../notification-message.js';
import { postJson, type Audience, type NotificationChannel } from './channel.js';

/** Telegram Bot API sendMessage; the project's chat overrides the default one. Plain text, no parse mode. */
export class TelegramChannel implements NotificationChannel {
  readonly name = 'telegram';

  constructor(private readonly opts: { token: string; chat?: string; api: string }) {}

  async send(message: NotificationMessage, audience: Audience): Promise<boolean> {
    const chat = audience.chat || this.opts.chat;
    if (!chat) return false;
    await postJson(`${this.opts.api}/bot${this.opts.token}/sendMessage`, {
      chat_id: chat,
      text: message.text,
      disable_web_page_preview: true,
    });
    return true;
  }
}
