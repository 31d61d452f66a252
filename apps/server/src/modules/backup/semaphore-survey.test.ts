import { surveyVarSchema, type SurveyVar } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { fromSemaphoreSurveyVar, toSemaphoreSurveyVar } from './semaphore-survey.js';

const base = { name: 'v', title: 'V', description: '', values: [], default_value: '', required: false };

describe('survey variables in Semaphore format', () => {
  it('writes Semaphore types, multi_enum as select with a list default, and the exact type beside', () => {
    const multi = toSemaphoreSurveyVar({ ...base, type: 'multi_enum', values: [{ name: 'A', value: 'a' }], default_value: '["a"]' });
    expect(multi).toMatchObject({ type: 'select', default_value: ['a'], gantry_type: 'multi_enum' });
    const flag = toSemaphoreSurveyVar({ ...base, type: 'boolean', default_value: 'true' });
    expect(flag).toMatchObject({ type: 'enum', gantry_type: 'boolean' });
    expect(flag.values).toHaveLength(2);
    expect(toSemaphoreSurveyVar({ ...base, type: 'int' })).not.toHaveProperty('gantry_type');
  });

  it('reads every Gantry type back exactly from its own Semaphore-format export', () => {
    const types = ['', 'int', 'secret', 'enum', 'text', 'number', 'boolean', 'multi_enum', 'date'] as const;
    for (const type of types) {
      const values = type === 'enum' || type === 'multi_enum' ? [{ name: 'A', value: 'a' }] : [];
      const v: SurveyVar = surveyVarSchema.parse({ ...base, type, values, default_value: type === 'multi_enum' ? '["a"]' : '' });
      const back = surveyVarSchema.parse(fromSemaphoreSurveyVar(JSON.parse(JSON.stringify(toSemaphoreSurveyVar(v))), () => {}));
      expect(back).toEqual(v);
    }
  });

  it("maps Semaphore's select and array defaults, and reports what Gantry does not keep", () => {
    const notes: string[] = [];
    const v = surveyVarSchema.parse(
      fromSemaphoreSurveyVar({ name: 'zones', title: 'Zones', type: 'select', values: [{ name: 'A', value: 'a' }], default_value: ['a'], target: 'env' }, (m) => notes.push(m)),
    );
    expect(v.type).toBe('multi_enum');
    expect(JSON.parse(v.default_value)).toEqual(['a']);
    expect(notes).toEqual([expect.stringContaining('environment variable')]);
    const single = surveyVarSchema.parse(fromSemaphoreSurveyVar({ name: 'x', title: 'X', default_value: null }, () => {}));
    expect(single.default_value).toBe('');
  });
});
