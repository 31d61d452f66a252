import { describe, expect, it } from 'vitest';
import { templateInputSchema } from './templates.js';

const problems = (body: unknown) =>
  templateInputSchema.safeParse(body).error?.issues.map((i) => [i.path.join('.'), i.message]) ?? [];

describe('template schema', () => {
  it('reports every problem in one pass, each at its field', () => {
    const body = {
      name: 'Site',
      app: 'ansible',
      survey_vars: [
        { name: '', title: 'Size' },
        { name: 'ansible_user', title: '' },
        { name: 'colour', title: 'Colour', type: 'enum' },
      ],
      vaults: [
        { type: 'password' },
        { name: 'Prod', type: 'script', script: 'a-client' },
        { name: 'prod ', type: 'script', script: 'b-client' },
      ],
    };
    expect(problems(body).sort()).toEqual(
      [
        ['repository_id', 'Repository is required'],
        ['environment_id', 'Variable group is required'],
        ['playbook', 'Playbook filename is required'],
        ['inventory_id', 'Inventory is required'],
        ['survey_vars.0.name', 'Variable name is required'],
        ['survey_vars.1.title', 'Variable title is required'],
        ['survey_vars.1.name', 'Variable ansible_user is reserved'],
        ['survey_vars.2.values', 'Enumeration must have values.'],
        ['vaults.0.vault_key_id', 'Vault password is required'],
        ['vaults.2.name', 'Vault names must be unique'],
      ].sort(),
    );
  });

  it('skips the checks that read a field given as the wrong type', () => {
    expect(
      problems({ name: 'Site', app: 'ansible', playbook: 5, survey_vars: 'x', repository_id: 1, environment_id: 1 }),
    ).toEqual([
      ['playbook', 'Invalid input: expected string, received number'],
      ['survey_vars', 'Invalid input: expected array, received string'],
    ]);
  });

  it('keeps a survey variable default value', () => {
    const body = {
      name: 't',
      app: 'bash',
      playbook: 'a.sh',
      repository_id: 1,
      environment_id: 1,
      survey_vars: [{ name: 'size', title: 'Size', default_value: '3' }],
    };
    expect(templateInputSchema.parse(body).survey_vars[0]?.default_value).toBe('3');
  });

  it("reads Semaphore's multiple choice (`select`, a list default) and null defaults and values", () => {
    const body = {
      name: 't',
      app: 'bash',
      playbook: 'a.sh',
      repository_id: 1,
      environment_id: 1,
      survey_vars: [
        { name: 'zones', title: 'Zones', type: 'select', values: [{ name: 'A', value: 'a' }, { name: 'B', value: 'b' }], default_value: ['a', 'b'] },
        { name: 'size', title: 'Size', type: null, values: null, default_value: null },
      ],
    };
    const [zones, size] = templateInputSchema.parse(body).survey_vars;
    expect(zones).toMatchObject({ type: 'multi_enum', default_value: '["a","b"]' });
    expect(size).toMatchObject({ type: '', values: [], default_value: '' });
    // A list default outside the values is still refused.
    expect(problems({ ...body, survey_vars: [{ ...body.survey_vars[0], default_value: ['c'] }] })).not.toEqual([]);
  });
});
