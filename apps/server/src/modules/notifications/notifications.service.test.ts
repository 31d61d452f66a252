import { describe, expect, it } from 'vitest';
import type { EventInput } from '../events/events.service.js';
import type { Audience, ChannelName, NotificationChannel } from './channels/channel.js';
import { TelegramChannel } from './channels/telegram.channel.js';
import type { NotificationMessage } from './notification-message.js';
import type { TaskNotificationContext } from './notifications.repository.js';
import { NotificationsService, type NotifyOutcome } from './notifications.service.js';

const context: TaskNotificationContext = {
  project_id: 1,
  project_name: 'Ops',
  project_alert: 1,
  alert_chat: null,
  template_id: 2,
  template_name: 'Backup',
  suppress_success_alerts: 0,
  user_name: null,
  schedule_id: 9,
  integration_id: null,
};

class FakeChannel implements NotificationChannel {
  readonly sent: Array<{ message: NotificationMessage; audience: Audience }> = [];
  constructor(
    readonly name: ChannelName,
    private readonly fail?: string,
  ) {}
  async send(message: NotificationMessage, audience: Audience): Promise<boolean> {
    if (this.fail) throw new Error(this.fail);
    this.sent.push({ message, audience });
    return true;
  }
}

function setup(
  channels: NotificationChannel[],
  ctx: TaskNotificationContext | undefined = context,
  secrets: string[] = [],
) {
  const events: EventInput[] = [];
  const calls: string[] = [];
  const repo = {
    context: async (id: number) => {
      calls.push(`context ${id}`);
      return ctx;
    },
    alertEmails: async (projectId: number) => {
      calls.push(`emails ${projectId}`);
      return ['a@example.com'];
    },
  };
  const service = new NotificationsService(repo, channels, { record: async (e) => void events.push(e) }, '', secrets);
  return { service, events, calls };
}

describe('notifications service', () => {
  it('does nothing, not even a query, when no channel is configured', async () => {
    const { service, calls } = setup([]);
    expect(await service.notify({ id: 5, status: 'error' })).toMatchObject({ skipped: 'no channel' });
    expect(calls).toEqual([]);
  });

  it('names what started the task when no user did, and asks for emails only for the email channel', async () => {
    const slack = new FakeChannel('slack');
    const { service, calls } = setup([slack]);
    expect((await service.notify({ id: 5, status: 'error' })).channels).toEqual({ slack: 'sent' });
    expect(slack.sent[0]!.message).toMatchObject({
      author: 'a schedule',
      url: '/project/1/templates/2?t=5',
      status: 'error',
    });
    expect(slack.sent[0]!.audience).toEqual({ emails: [], chat: null });
    expect(calls).toEqual(['context 5']);

    const email = new FakeChannel('email');
    const withEmail = setup([email]);
    await withEmail.service.notify({ id: 6, status: 'stopped' });
    expect(email.sent[0]!.audience.emails).toEqual(['a@example.com']);
  });

  it('skips a Telegram message when neither the project nor the configuration names a chat', async () => {
    const telegram = new TelegramChannel({ token: 't', api: 'http://127.0.0.1:1' });
    const { service } = setup([telegram]);
    expect((await service.notify({ id: 5, status: 'success' })).channels).toEqual({ telegram: 'skipped' });
  });

  it('records a failed channel with its secrets masked, and still delivers through the others', async () => {
    const webhook = new FakeChannel('webhook');
    const broken = new FakeChannel('slack', 'could not post to https://hooks.example/T0/secret-path with 123:tok');
    const { service, events } = setup([broken, webhook], context, ['https://hooks.example/T0/secret-path', '123:tok']);
    expect((await service.notify({ id: 5, status: 'error' })).channels).toEqual({ slack: 'failed', webhook: 'sent' });
    expect(events).toEqual([
      {
        projectId: 1,
        userId: null,
        objectType: 'task',
        objectId: 5,
        description: 'Notification via slack failed: could not post to *** with ***',
      },
    ]);
  });

  it('dispatches without waiting or throwing, and tells listeners the outcome', async () => {
    const { service } = setup([new FakeChannel('slack')]);
    const seen: NotifyOutcome[] = [];
    const off = service.onSettled((o) => seen.push(o));
    service.dispatch({ id: 5, status: 'running' });
    expect(seen).toEqual([]);
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toEqual([{ taskId: 5, status: 'running', event: null, skipped: 'status', channels: {} }]);
    off();

    const failing = new NotificationsService(
      { context: async () => Promise.reject(new Error('database is gone')), alertEmails: async () => [] },
      [new FakeChannel('slack')],
      { record: async () => undefined },
      '',
      [],
    );
    // A broken database must not become an unhandled rejection (Vitest fails the run on one).
    const heard: NotifyOutcome[] = [];
    failing.onSettled((o) => heard.push(o));
    failing.dispatch({ id: 5, status: 'error' });
    await new Promise((r) => setTimeout(r, 0));
    expect(heard).toEqual([]);
  });
});
