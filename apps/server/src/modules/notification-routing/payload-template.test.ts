import { describe, expect, it } from 'vitest';
import { checkPayloadTemplate, renderPayloadTemplate } from './payload-template.js';

const payload = {
  event: 'task_failed',
  project: { id: 3, name: 'Ops "core"' },
  task: { id: 12, status: 'error', end: null },
  plan_summary: { destroy: 2 },
};

describe('payload template', () => {
  it('inserts text escaped for a JSON string and values as JSON', () => {
    const out = renderPayloadTemplate(
      '{"text": "{{ project.name }}: task {{task.id}} {{ task.status }}", "plan": {{ json plan_summary }}, "end": {{json task.end}}}',
      payload,
    );
    expect(JSON.parse(out)).toEqual({ text: 'Ops "core": task 12 error', plan: { destroy: 2 }, end: null });
  });

  it('gives empty text for a missing path and never reaches a prototype', () => {
    expect(renderPayloadTemplate('[{{ nope.x }}][{{ task.constructor }}][{{ json __proto__ }}]', payload)).toBe(
      '[][][null]',
    );
  });

  it('refuses any tag it does not have', () => {
    expect(checkPayloadTemplate('{"a": "{{ task.id }}", "b": {{ json task }}}')).toBeNull();
    expect(checkPayloadTemplate('{{#task}}x{{/task}}')).toBe('{{#task}}');
    expect(checkPayloadTemplate('{{ process.env | upper }}')).toBe('{{ process.env | upper }}');
    expect(checkPayloadTemplate('a {{ b')).toBe('{{ b');
  });
});
