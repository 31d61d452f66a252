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

  it('words a drift finding with the workspace and the counts', () => {
    const m = buildMessage({
      ...base,
      templateName: 'Infra',
      status: 'success',
      author: 'a schedule',
      drift: { workspace: 'prod', changes: { create: 1, update: 2, replace: 0, destroy: 3 } },
    });
    expect(m.event).toBe('drift');
    expect(m.status).toBe('drifted');
    expect(m.title).toBe('[Web] Drift found in Infra (workspace prod)');
    expect(m.text).toContain('Workspace: prod');
    expect(m.text).toContain('Changes: 1 to add, 2 to change, 0 to replace, 3 to destroy');
    expect(m.text).toContain('https://gantry.example.com/project/3/templates/7?t=42');
    expect(buildMessage({ ...base, drift: { workspace: null, changes: null } }).title).toBe(
      '[Web] Drift found in Deploy',
    );
  });

  it('gives the plan counts to a task waiting for confirmation', () => {
    const m = buildMessage({
      ...base,
      status: 'waiting_confirmation',
      plan: { create: 2, update: 0, replace: 1, destroy: 0 },
    });
    expect(m.event).toBe('task_waiting_confirmation');
    expect(m.text).toContain('Plan: 2 to add, 0 to change, 1 to replace, 0 to destroy');
    expect(buildMessage({ ...base, status: 'waiting_confirmation' }).text).not.toContain('Plan:');
  });
});
