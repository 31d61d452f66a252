import { describe, expect, it } from 'vitest';
import { checkSurveyAnswers, coerceSurveyAnswer, type SurveyParameter } from './survey-answers.js';
import { templateInputSchema } from './templates.js';

const p = (over: Partial<SurveyParameter>): SurveyParameter => ({
  name: 'x',
  title: 'X',
  type: '',
  values: [],
  default_value: '',
  required: false,
  ...over,
});
const ok = (v: SurveyParameter, raw: unknown) => {
  const r = coerceSurveyAnswer(v, raw);
  if (!r.ok) throw new Error(`refused: ${r.issue.message}`);
  return r.value;
};
const code = (v: SurveyParameter, raw: unknown) => {
  const r = coerceSurveyAnswer(v, raw);
  return r.ok ? null : r.issue.code;
};
const choices = [
  { name: 'A', value: 'a' },
  { name: 'B', value: 'b' },
];

describe('coerceSurveyAnswer', () => {
  it('types integers from numbers and Semaphore text, within min and max', () => {
    const v = p({ type: 'int', min: 1, max: 10 });
    expect(ok(v, '5')).toBe(5);
    expect(ok(v, ' 7 ')).toBe(7);
    expect(ok(v, 10)).toBe(10);
    expect(code(v, '5.5')).toBe('survey_value_integer');
    expect(code(v, 2.5)).toBe('survey_value_integer');
    expect(code(v, 'five')).toBe('survey_value_integer');
    expect(code(v, true)).toBe('survey_value_integer');
    expect(code(v, '0')).toBe('survey_value_min');
    expect(code(v, 11)).toBe('survey_value_max');
  });

  it('types decimal numbers', () => {
    const v = p({ type: 'number', min: -1.5 });
    expect(ok(v, '2.25')).toBe(2.25);
    expect(ok(v, -1.5)).toBe(-1.5);
    expect(ok(v, '1e3')).toBe(1000);
    expect(code(v, '1,5')).toBe('survey_value_number');
    expect(code(v, 'NaN')).toBe('survey_value_number');
    expect(code(v, '-2')).toBe('survey_value_min');
  });

  it('types booleans from JSON and text', () => {
    const v = p({ type: 'boolean' });
    expect(ok(v, true)).toBe(true);
    expect(ok(v, 'false')).toBe(false);
    expect(ok(v, 'TRUE')).toBe(true);
    expect(code(v, 'yes')).toBe('survey_value_boolean');
    expect(code(v, 1)).toBe('survey_value_boolean');
  });

  it('checks single and multiple choices against the static values', () => {
    expect(ok(p({ type: 'enum', values: choices }), 'b')).toBe('b');
    expect(code(p({ type: 'enum', values: choices }), 'c')).toBe('survey_value_enum');
    const m = p({ type: 'multi_enum', values: choices });
    expect(ok(m, ['a', 'b', 'a'])).toEqual(['a', 'b']);
    expect(ok(m, '["b"]')).toEqual(['b']);
    expect(ok(m, 'a')).toEqual(['a']);
    expect(code(m, ['a', 'z'])).toBe('survey_value_enum');
    expect(code(m, '[1, {}]')).toBe('survey_value_list');
    expect(code(m, '[oops')).toBe('survey_value_list');
    expect(code(m, { a: 1 })).toBe('survey_value_list');
  });

  it('leaves choices from an options source to the server check', () => {
    const src = { kind: 'inventory_hosts' } as const;
    expect(ok(p({ type: 'enum', options_source: src }), 'web1')).toBe('web1');
    expect(ok(p({ type: 'multi_enum', options_source: src }), ['web1', 'web2'])).toEqual(['web1', 'web2']);
  });

  it('checks dates, patterns and text', () => {
    const d = p({ type: 'date' });
    expect(ok(d, '2024-02-29')).toBe('2024-02-29');
    expect(code(d, '2023-02-29')).toBe('survey_value_date');
    expect(code(d, '2024-2-1')).toBe('survey_value_date');
    const r = p({ type: 'text', regex: '[a-z]+(-[a-z]+)*' });
    expect(ok(r, 'web-eu')).toBe('web-eu');
    // The whole answer must match, not a part of it.
    expect(code(r, 'web-eu; rm')).toBe('survey_value_pattern');
    expect(ok(p({}), 12)).toBe('12');
    expect(code(p({}), ['a'])).toBe('survey_value_text');
    expect(ok(p({ type: 'secret' }), 's3cret')).toBe('s3cret');
  });
});

describe('checkSurveyAnswers', () => {
  const vars = [
    p({ name: 'port', title: 'Port', type: 'int', required: true, min: 1 }),
    p({ name: 'debug', title: 'Debug', type: 'boolean', default_value: 'false' }),
    p({ name: 'tiers', title: 'Tiers', type: 'multi_enum', values: choices, default_value: '["a"]' }),
    p({ name: 'token', title: 'Token', type: 'secret', required: true }),
    p({ name: 'note', title: 'Note', type: 'text' }),
  ];

  it('reports every refused answer at once, each at its field', () => {
    const r = checkSurveyAnswers(vars, { port: '0', tiers: ['z'] }, {});
    expect(r.issues.map((i) => [i.field, i.code])).toEqual([
      ['environment.port', 'survey_value_min'],
      ['environment.tiers', 'survey_value_enum'],
      ['secret.token', 'survey_value_required'],
    ]);
  });

  it('types the answers and fills in defaults', () => {
    const r = checkSurveyAnswers(vars, { port: '22', note: '', extra: 'kept' }, { token: 't' });
    expect(r.issues).toEqual([]);
    expect(r.environment).toEqual({ port: 22, debug: false, tiers: ['a'], extra: 'kept' });
    expect(r.secret).toEqual({ token: 't' });
  });

  it('partial: nothing required, no defaults', () => {
    const r = checkSurveyAnswers(vars, { debug: 'true' }, {}, { partial: true });
    expect(r.issues).toEqual([]);
    expect(r.environment).toEqual({ debug: true });
  });
});

describe('parameter settings on a template', () => {
  const base = { name: 'T', playbook: 'p.yml', repository_id: 1, environment_id: 1, inventory_id: 1 };
  const issues = (survey_vars: unknown[]) =>
    templateInputSchema
      .safeParse({ ...base, survey_vars })
      .error?.issues.map((i) => [i.path.join('.'), (i as { params?: { code?: string } }).params?.code]) ?? [];

  it('accepts every type with sound settings', () => {
    expect(
      issues([
        { name: 'a', title: 'A', type: 'int', min: 1, max: 5, default_value: '3' },
        { name: 'b', title: 'B', type: 'boolean', default_value: 'true' },
        { name: 'c', title: 'C', type: 'multi_enum', values: choices, default_value: '["a","b"]' },
        { name: 'd', title: 'D', type: 'text', regex: '\\w+', default_value: 'hi' },
        { name: 'e', title: 'E', type: 'enum', options_source: { kind: 'parameter', parameter: 'a', options: {} } },
        { name: 'f', title: 'F', type: 'date', default_value: '2025-01-31' },
      ]),
    ).toEqual([]);
  });

  it('refuses settings that cannot work, each at its setting', () => {
    expect(
      issues([
        { name: 'a', title: 'A', type: 'int', min: 5, max: 1 },
        { name: 'b', title: 'B', type: '', min: 1 },
        { name: 'c', title: 'C', type: 'text', regex: '(' },
        { name: 'd', title: 'D', type: 'int', regex: '\\d' },
        { name: 'e', title: 'E', type: 'multi_enum' },
        { name: 'f', title: 'F', type: 'boolean', options_source: { kind: 'inventory_hosts' } },
        { name: 'g', title: 'G', type: 'boolean', default_value: 'maybe' },
        { name: 'h', title: 'H', type: 'enum', options_source: { kind: 'parameter', parameter: 'nope', options: {} } },
      ]),
    ).toEqual([
      ['survey_vars.0.max', 'survey_limits_order'],
      ['survey_vars.1.min', 'survey_limits_numeric_only'],
      ['survey_vars.2.regex', 'survey_regex_invalid'],
      ['survey_vars.3.regex', 'survey_regex_text_only'],
      ['survey_vars.4.values', 'enum_values_required'],
      ['survey_vars.5.options_source', 'survey_options_source_choice_only'],
      ['survey_vars.6.default_value', 'survey_default_invalid'],
      ['survey_vars.7.options_source', 'survey_options_parameter_unknown'],
    ]);
  });
});
