import { PLAN_MAX_CHANGES, stateDiffSchema, summarizeState } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { diffStates } from './state-diff.js';

type Attrs = Record<string, unknown>;
const instance = (attributes: Attrs, sensitive: unknown[] = [], index_key?: number | string) => ({
  ...(index_key === undefined ? {} : { index_key }),
  attributes,
  sensitive_attributes: sensitive,
});
const state = (resources: unknown[], outputs: Record<string, unknown> = {}) =>
  JSON.stringify({ version: 4, serial: 1, lineage: 'l', outputs, resources });
const data = (name: string, instances: unknown[], module?: string) => ({
  ...(module ? { module } : {}),
  mode: 'managed',
  type: 'terraform_data',
  name,
  instances,
});
const sensitivePath = (...steps: Array<string | number>) =>
  steps.map((s) =>
    typeof s === 'number' ? { type: 'index', value: { value: s, type: 'number' } } : { type: 'get_attr', value: s },
  );

describe('diffStates', () => {
  it('lists resources added, removed and changed by address, with the changed attribute paths', () => {
    const before = state([
      data('keep', [instance({ id: '1', input: 'a', tags: { env: 'dev', team: 'x' }, list: [1, 2] })]),
      data('same', [instance({ id: '2', input: 'z' })]),
      data('gone', [instance({ id: '3', input: 'g' })]),
      data('many', [instance({ id: '4' }, [], 0), instance({ id: '5' }, [], 1)]),
    ]);
    const after = state([
      data('keep', [instance({ id: '1', input: 'b', tags: { env: 'prod' }, list: [1, 2, 3] })]),
      data('same', [instance({ id: '2', input: 'z' })]),
      data('many', [instance({ id: '4' }, [], 0)]),
      data('new', [instance({ id: '6', input: { value: 'n', type: 'string' } }, [], 'k')], 'module.app'),
    ]);
    const diff = diffStates(1, before, 2, after);
    expect(stateDiffSchema.parse(diff)).toEqual(diff);
    expect(diff.from).toBe(1);
    expect(diff.to).toBe(2);
    expect(diff.resources).toEqual([
      {
        address: 'module.app.terraform_data.new["k"]',
        change: 'added',
        attributes: [
          { path: 'id', before: null, after: '6' },
          { path: 'input.value', before: null, after: 'n' },
          { path: 'input.type', before: null, after: 'string' },
        ],
      },
      { address: 'terraform_data.gone', change: 'removed', attributes: expect.any(Array) },
      {
        address: 'terraform_data.keep',
        change: 'changed',
        attributes: [
          { path: 'input', before: 'a', after: 'b' },
          { path: 'tags.env', before: 'dev', after: 'prod' },
          { path: 'tags.team', before: 'x', after: null },
          { path: 'list.2', before: null, after: 3 },
        ],
      },
      { address: 'terraform_data.many[1]', change: 'removed', attributes: [{ path: 'id', before: '5', after: null }] },
    ]);
    // The addresses are those `terraform state list` prints (as the versions list counts them).
    const listed = [...summarizeState(before)!.addresses, ...summarizeState(after)!.addresses];
    for (const r of diff.resources) expect(listed).toContain(r.address);
    expect(diff.outputs).toEqual([]);
  });

  it('says nothing changed between equal states', () => {
    const s = state([data('a', [instance({ id: '1', input: 'x' })])], { o: { value: 1, type: 'number' } });
    expect(diffStates(3, s, 4, s)).toEqual({ from: 3, to: 4, resources: [], outputs: [] });
  });

  it('shows a changed sensitive attribute or output as changed, never its value', () => {
    const before = state(
      [data('db', [instance({ id: '1', password: 'old-secret-canary', name: 'db' }, [sensitivePath('password')])])],
      { pw: { value: 'old-pw-canary', type: 'string', sensitive: true }, plain: { value: 'p1', type: 'string' } },
    );
    const after = state(
      [
        data('db', [
          instance({ id: '1', password: 'new-secret-canary', name: 'db2', list: ['a', 'hidden-item'] }, [
            sensitivePath('password'),
            sensitivePath('list', 1),
          ]),
        ]),
      ],
      {
        pw: { value: 'new-pw-canary', type: 'string', sensitive: true },
        plain: { value: 'p2', type: 'string' },
        added: { value: 'added-secret-canary', type: 'string', sensitive: true },
      },
    );
    const diff = diffStates(1, before, 2, after);
    const text = JSON.stringify(diff);
    for (const secret of ['old-secret-canary', 'new-secret-canary', 'old-pw-canary', 'new-pw-canary', 'hidden-item']) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toContain('added-secret-canary');
    expect(diff.resources).toEqual([
      {
        address: 'terraform_data.db',
        change: 'changed',
        attributes: [
          { path: 'password', before: '(sensitive)', after: '(sensitive)' },
          { path: 'name', before: 'db', after: 'db2' },
          { path: 'list.0', before: null, after: 'a' },
          { path: 'list.1', before: null, after: '(sensitive)' },
        ],
      },
    ]);
    expect(diff.outputs).toEqual([
      { path: 'added', before: null, after: '(sensitive)' },
      { path: 'plain', before: 'p1', after: 'p2' },
      { path: 'pw', before: '(sensitive)', after: '(sensitive)' },
    ]);
  });

  it('hides a sensitive value a provider copied into an unmarked attribute', () => {
    const s = (v: string) =>
      state([
        data('d', [
          instance({ input: { value: v, type: 'string' }, output: { value: v, type: 'string' } }, [
            sensitivePath('input'),
          ]),
        ]),
      ]);
    const diff = diffStates(1, s('copied-secret-1'), 2, s('copied-secret-2'));
    expect(JSON.stringify(diff)).not.toContain('copied-secret');
    expect(diff.resources[0]!.attributes).toEqual([
      { path: 'input', before: '(sensitive)', after: '(sensitive)' },
      { path: 'output.value', before: '(sensitive)', after: '(sensitive)' },
    ]);
  });

  it('does not report a sensitive value that stayed the same', () => {
    const s = (name: string) =>
      state([data('db', [instance({ id: '1', password: 'same-secret', name }, [sensitivePath('password')])])], {
        pw: { value: 'same-pw', type: 'string', sensitive: true },
      });
    const diff = diffStates(1, s('a'), 2, s('b'));
    expect(diff.resources[0]!.attributes).toEqual([{ path: 'name', before: 'a', after: 'b' }]);
    expect(diff.outputs).toEqual([]);
  });

  it('shows a value whose kind changed as one change, and caps the changes per resource', () => {
    const big = Object.fromEntries(Array.from({ length: PLAN_MAX_CHANGES + 20 }, (_, i) => [`k${i}`, i]));
    const diff = diffStates(
      1,
      state([data('a', [instance({ v: 'text', big: {} })])]),
      2,
      state([data('a', [instance({ v: ['x'], big })])]),
    );
    const attrs = diff.resources[0]!.attributes;
    expect(attrs[0]).toEqual({ path: 'v', before: 'text', after: ['x'] });
    expect(attrs).toHaveLength(PLAN_MAX_CHANGES);
    expect(attrs[1]).toEqual({ path: 'big.k0', before: null, after: 0 });
  });

  it('treats text that is not a state as an empty one', () => {
    const s = state([data('a', [instance({ id: '1' })])]);
    expect(diffStates(1, 'not json', 2, s).resources).toEqual([
      { address: 'terraform_data.a', change: 'added', attributes: [{ path: 'id', before: null, after: '1' }] },
    ]);
  });
});
