import type { SurveyVar } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../platform/errors.js';
import { typedSurveyAnswers, type DynamicOptionCheck } from './survey-answers.js';

const v = (over: Partial<SurveyVar>): SurveyVar => ({
  name: 'x',
  title: 'X',
  description: '',
  type: '',
  values: [],
  default_value: '',
  required: false,
  ...over,
});
const hosts = v({ name: 'host', title: 'Host', type: 'enum', options_source: { kind: 'inventory_hosts' } });
const refusal = async (p: Promise<unknown>) => {
  const e = await p.catch((x: unknown) => x);
  expect(e).toBeInstanceOf(ValidationError);
  return { message: (e as ValidationError).message, ...(e as ValidationError).details };
};

describe('typedSurveyAnswers', () => {
  it('types answers and defaults, secrets in their own bag', async () => {
    const vars = [
      v({ name: 'n', type: 'int' }),
      v({ name: 'b', type: 'boolean', default_value: 'true' }),
      v({ name: 's', type: 'secret', default_value: 'd' }),
    ];
    expect(await typedSurveyAnswers(vars, { n: '3' }, {})).toEqual({
      environment: { n: 3, b: true },
      secret: { s: 'd' },
    });
  });

  it('refuses with the first issue: code, title and the field with its prefix', async () => {
    const vars = [
      v({ name: 'n', title: 'Count', type: 'int', max: 2 }),
      v({ name: 'k', title: 'Key', type: 'secret', required: true }),
    ];
    expect(await refusal(typedSurveyAnswers(vars, { n: 3 }, {}, { fieldPrefix: 'task_params.' }))).toEqual({
      message: 'Count must be at most 2',
      code: 'survey_value_max',
      title: 'Count',
      max: 2,
      field: 'task_params.environment.n',
    });
    expect((await refusal(typedSurveyAnswers(vars, { n: 1 }, {}))).field).toBe('secret.k');
  });

  it('accepts answers of a sourced choice as data without a check, and asks the check when there is one', async () => {
    expect((await typedSurveyAnswers([hosts], { host: 'web1' }, {})).environment).toEqual({ host: 'web1' });
    const seen: unknown[] = [];
    const check: DynamicOptionCheck = async (variable, answer, answers) => {
      seen.push([variable.name, answer, answers]);
      return answer === 'web1'
        ? null
        : {
            name: variable.name,
            field: `environment.${variable.name}`,
            code: 'survey_value_enum',
            message: 'Host must be one of its values',
            params: { title: 'Host' },
          };
    };
    await typedSurveyAnswers([hosts], { host: 'web1', other: 1 }, {}, { checkDynamicOption: check });
    expect(seen).toEqual([['host', 'web1', { host: 'web1', other: 1 }]]);
    expect(
      await refusal(typedSurveyAnswers([hosts], { host: 'evil' }, {}, { checkDynamicOption: check })),
    ).toMatchObject({ code: 'survey_value_enum', field: 'environment.host' });
    // A blank answer is not asked about.
    await typedSurveyAnswers([hosts], {}, {}, { checkDynamicOption: check });
    expect(seen).toHaveLength(2);
  });
});
