import { describe, expect, it } from 'vitest';
import { buildMessage, notificationEventFor, type MessageInput } from './notification-message.js';

const base: MessageInput = {
  projectId: 3,
  projectName: 'Web',
  templateId: 7,
  templateName: 'Deploy',
  taskId: 42,
  status: 'success',
  author: 'Alice Smith',
  webHost: 'https://gantry.example.com',
};

describe('notification message', () => {
  it('words a successful task with its link, author and colour', () => {
    const m = buildMessage(base);
    expect(m.event).toBe('task_finished');
    expect(m.title).toBe('[Web] Task #42 of Deploy succeeded');
    expect(m.url).toBe('https://gantry.example.com/project/3/templates/7?t=42');
    expect(m.text).toBe(
      [
        '[Web] Task #42 of Deploy succeeded',
        'Project: Web',
        'Template: Deploy',
        'Task: #42',
        'Status: success',
        'Started by: Alice Smith',
        'https://gantry.example.com/project/3/templates/7?t=42',
      ].join('\n'),
    );
    expect(m.color).toBe('2EB886');
    expect(m).toMatchObject({
      projectId: 3,
      projectName: 'Web',
      templateId: 7,
      templateName: 'Deploy',
      taskId: 42,
      status: 'success',
      author: 'Alice Smith',
    });
  });

  it('words failures and stops, and leaves out an unknown author', () => {
    const failed = buildMessage({ ...base, status: 'error', author: null });
    expect(failed.title).toBe('[Web] Task #42 of Deploy failed');
    expect(failed.text).not.toContain('Started by');
    expect(failed.color).toBe('D9534F');
    const stopped = buildMessage({ ...base, status: 'stopped' });
    expect(stopped.title).toBe('[Web] Task #42 of Deploy was stopped');
    expect(stopped.color).toBe('888888');
  });

  it('says that a task waits for confirmation', () => {
    const m = buildMessage({ ...base, status: 'waiting_confirmation' });
    expect(m.event).toBe('task_waiting_confirmation');
    expect(m.title).toBe('[Web] Task #42 of Deploy is waiting for confirmation');
    expect(m.text).toContain('confirm or reject');
    expect(m.color).toBe('F0AD4E');
  });

  it('links relatively when the console URL is not configured', () => {
    expect(buildMessage({ ...base, webHost: '' }).url).toBe('/project/3/templates/7?t=42');
  });

  it('notifies for success, error, stopped and waiting for confirmation only', () => {
    expect(notificationEventFor('success')).toBe('task_finished');
    expect(notificationEventFor('error')).toBe('task_finished');
    expect(notificationEventFor('stopped')).toBe('task_finished');
    expect(notificationEventFor('waiting_confirmation')).toBe('task_waiting_confirmation');
    for (const s of ['rejected', 'running', 'waiting', 'starting', 'confirmed', 'stopping'])
      expect(notificationEventFor(s)).toBeNull();
  });
});
