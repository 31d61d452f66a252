import nodemailer, { type Transporter } from 'nodemailer';
import type { NotificationsConfig } from '../../../config/config.js';
import type { NotificationMessage } from '../notification-message.js';
import { DELIVERY_TIMEOUT_MS, type Audience, type NotificationChannel } from './channel.js';

type EmailConfig = NonNullable<NotificationsConfig['email']>;

/** SMTP: one plain-text email per recipient, so members do not see each other's addresses. */
export class EmailChannel implements NotificationChannel {
  readonly name = 'email';
  private readonly transport: Transporter;

  constructor(private readonly config: EmailConfig) {
    this.transport = nodemailer.createTransport({
      host: config.host,
      port: config.port,
      secure: config.secure,
      auth: config.username ? { user: config.username, pass: config.password ?? '' } : undefined,
      connectionTimeout: DELIVERY_TIMEOUT_MS,
      greetingTimeout: DELIVERY_TIMEOUT_MS,
      socketTimeout: DELIVERY_TIMEOUT_MS,
    });
  }

  async send(message: NotificationMessage, audience: Audience): Promise<boolean> {
    if (audience.emails.length === 0) return false;
    const failures: string[] = [];
    for (const to of audience.emails) {
      try {
        await this.transport.sendMail({ from: this.config.sender, to, subject: message.title, text: message.text });
      } catch (e) {
        failures.push(`${to}: ${(e as Error).message}`);
      }
    }
    if (failures.length)
      throw new Error(`${failures.length} of ${audience.emails.length} emails not sent (${failures[0]})`);
    return true;
  }
}
