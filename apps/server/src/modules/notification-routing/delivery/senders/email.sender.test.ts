import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpReceiver, type SmtpReceiver } from '../../../../test/smtp-receiver.js';
import { destination, failure, samplePayload } from '../test-payload.js';
import { sendNotification, type SenderContext } from './index.js';

const base: SenderContext = { allowedHosts: ['127.0.0.1'], now: () => new Date(), timeoutMs: 3000 };

let smtp: SmtpReceiver;
beforeAll(async () => {
  smtp = await startSmtpReceiver();
});
afterAll(() => smtp.close());

describe('email sender', () => {
  const own = (port: number) =>
    destination(
      'email',
      {
        to: ['ops@example.com', 'dev@example.com'],
        host: '127.0.0.1',
        port,
        secure: false,
        username: 'bot',
        sender: 'gantry@example.com',
      },
      { password: 'smtp-Pa55word' },
    );

  it("sends through the destination's SMTP server, signed in, to every recipient", async () => {
    const r = await sendNotification(own(smtp.port), samplePayload(), base);
    expect(r.httpStatus).toBeNull();
    const mail = smtp.mails.at(-1)!;
    expect(mail.from).toBe('gantry@example.com');
    expect(mail.to).toEqual(['ops@example.com', 'dev@example.com']);
    expect(mail.data).toContain('Subject: Task #99 of Deploy failed');
    expect(mail.data).toContain('Project Shop, by alice');
    expect(smtp.logins.at(-1)).toEqual({ user: 'bot', password: 'smtp-Pa55word' });
  });

  it('refuses a private SMTP host unless allowed', async () => {
    const before = smtp.mails.length;
    const e = await failure(sendNotification(own(smtp.port), samplePayload(), { ...base, allowedHosts: [] }));
    expect(e.retryable).toBe(false);
    expect(e.message).toContain('private');
    expect(smtp.mails).toHaveLength(before);
  });

  it("uses the server's own SMTP (trusted) when the destination names none, and fails for good with neither", async () => {
    const dest = destination('email', { to: 'team@example.com' }, {});
    const emailDefaults = { host: '127.0.0.1', port: smtp.port, secure: false, sender: 'server@example.com' };
    await sendNotification(dest, samplePayload(), { ...base, allowedHosts: [], emailDefaults });
    expect(smtp.mails.at(-1)).toMatchObject({ from: 'server@example.com', to: ['team@example.com'] });
    const e = await failure(sendNotification(dest, samplePayload(), { ...base, allowedHosts: [] }));
    expect(e.retryable).toBe(false);
  });
});
