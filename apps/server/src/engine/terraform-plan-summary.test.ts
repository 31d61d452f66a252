import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAN_MAX_CHANGES, PLAN_MAX_RESOURCES, PLAN_SENSITIVE, PLAN_UNKNOWN, planCounts } from '@gantry/contracts';
import { planAction, summarizePlan } from './terraform-plan-summary.js';

// Real `terraform show -json` output (Terraform 1.11): a state of four terraform_data resources,
// then a configuration that changes `keep`, drops `gone`, replaces `rebuilt` (triggers_replace),
// changes `secret` (from a `sensitive = true` variable) and adds `fresh`. The refresh-only plan
// found an output change; its one resource_drift entry is `keep`'s change in the same shape
// (terraform_data cannot drift by itself).
const fixtures = path.join(import.meta.dirname, 'fixtures', 'terraform-plan');
const planJson = fs.readFileSync(path.join(fixtures, 'plan.json'), 'utf8');
const refreshJson = fs.readFileSync(path.join(fixtures, 'refresh-only.json'), 'utf8');

describe('summarizePlan', () => {
  it('counts each action and lists each resource with its action', () => {
    const s = summarizePlan(planJson);
    expect(planCounts(s)).toBe('1 to add, 2 to change, 1 to replace, 1 to destroy');
    expect(s.resources.map((r) => [r.address, r.type, r.action])).toEqual([
      ['terraform_data.fresh', 'terraform_data', 'create'],
      ['terraform_data.gone', 'terraform_data', 'destroy'],
      ['terraform_data.keep', 'terraform_data', 'update'],
      ['terraform_data.rebuilt', 'terraform_data', 'replace'],
      ['terraform_data.secret', 'terraform_data', 'update'],
    ]);
    expect(s).toMatchObject({ truncated: false, refresh_only: false, policy: null, output_changes: ['greeting'] });
  });

  it('gives the changed attributes as dotted paths, unknown values as known after apply', () => {
    const s = summarizePlan(planJson);
    const keep = s.resources.find((r) => r.address === 'terraform_data.keep')!;
    expect(keep.changes).toEqual([
      { path: 'input.env', before: 'one', after: 'two' },
      { path: 'input.ports.1', before: 443, after: 8443 },
      { path: 'output', before: { env: 'one', ports: [80, 443] }, after: PLAN_UNKNOWN },
    ]);
    const fresh = s.resources.find((r) => r.address === 'terraform_data.fresh')!;
    expect(fresh.changes).toEqual([
      { path: 'id', before: null, after: PLAN_UNKNOWN },
      { path: 'input', before: null, after: 'new' },
      { path: 'output', before: null, after: PLAN_UNKNOWN },
    ]);
    const rebuilt = s.resources.find((r) => r.address === 'terraform_data.rebuilt')!;
    expect(rebuilt.changes).toContainEqual({ path: 'triggers_replace.0', before: 1, after: 2 });
  });

  it('never shows a sensitive value, even where Terraform does not mark it', () => {
    expect(planJson).toContain('hunter2-changed');
    const s = summarizePlan(planJson);
    const text = JSON.stringify(s);
    expect(text).not.toContain('hunter2');
    const secret = s.resources.find((r) => r.address === 'terraform_data.secret')!;
    expect(secret.changes).toContainEqual({ path: 'input', before: PLAN_SENSITIVE, after: PLAN_SENSITIVE });
    // `output` copies the input but the plan does not mark it: hidden all the same.
    expect(secret.changes).toContainEqual({ path: 'output', before: PLAN_SENSITIVE, after: PLAN_UNKNOWN });
  });

  it('summarises the drift of a refresh-only plan', () => {
    const s = summarizePlan(refreshJson, true);
    expect(s).toMatchObject({ refresh_only: true, create: 0, update: 1, replace: 0, destroy: 0 });
    expect(s.resources.map((r) => r.address)).toEqual(['terraform_data.keep']);
    expect(s.output_changes).toEqual(['greeting']);
    // Without refresh-only the same JSON has no resource changes at all.
    expect(planCounts(summarizePlan(refreshJson))).toBe('0 to add, 0 to change, 0 to replace, 0 to destroy');
  });

  it('caps resources and changes, keeping the counts exact', () => {
    const after = Object.fromEntries(Array.from({ length: PLAN_MAX_CHANGES + 20 }, (_, i) => [`a${i}`, i]));
    const rc = (i: number) => ({
      address: `terraform_data.n${i}`,
      type: 'terraform_data',
      change: {
        actions: ['create'],
        before: null,
        after,
        after_unknown: {},
        before_sensitive: false,
        after_sensitive: {},
      },
    });
    const plan = {
      format_version: '1.2',
      resource_changes: Array.from({ length: PLAN_MAX_RESOURCES + 3 }, (_, i) => rc(i)),
    };
    const s = summarizePlan(plan);
    expect(s.create).toBe(PLAN_MAX_RESOURCES + 3);
    expect(s.resources).toHaveLength(PLAN_MAX_RESOURCES);
    expect(s.truncated).toBe(true);
    expect(s.resources[0]!.changes).toHaveLength(PLAN_MAX_CHANGES);
  });

  it('skips no-op and read, hides nested sensitive values by their marks', () => {
    const plan = {
      format_version: '1.2',
      resource_changes: [
        { address: 'data.x.y', type: 'x', change: { actions: ['read'] } },
        { address: 'a.same', type: 'a', change: { actions: ['no-op'], before: {}, after: {} } },
        {
          address: 'a.b',
          type: 'a',
          change: {
            actions: ['update'],
            before: { tags: { env: 'dev', key: 'pw1' }, list: [{ port: 1 }] },
            after: { tags: { env: 'prod', key: 'pw2' }, list: [{ port: 2 }] },
            after_unknown: {},
            before_sensitive: { tags: { key: true } },
            after_sensitive: { tags: { key: true } },
          },
        },
      ],
      output_changes: { same: { actions: ['no-op'] }, moved: { actions: ['create'] } },
    };
    const s = summarizePlan(plan);
    expect(s.resources).toHaveLength(1);
    expect(s.resources[0]!.changes).toEqual([
      { path: 'list.0.port', before: 1, after: 2 },
      { path: 'tags.env', before: 'dev', after: 'prod' },
      { path: 'tags.key', before: PLAN_SENSITIVE, after: PLAN_SENSITIVE },
    ]);
    expect(s.output_changes).toEqual(['moved']);
  });

  it('refuses what is not a plan', () => {
    expect(() => summarizePlan('[]')).toThrow(/not the JSON of a saved plan/);
    expect(() => summarizePlan('{')).toThrow();
  });

  it('maps Terraform action lists', () => {
    expect(planAction(['create', 'delete'])).toBe('replace');
    expect(planAction(['delete', 'create'])).toBe('replace');
    expect(planAction(['delete'])).toBe('destroy');
    expect(planAction(['no-op'])).toBeNull();
    expect(planAction(['forget'])).toBeNull();
    expect(planAction('create')).toBeNull();
  });
});
