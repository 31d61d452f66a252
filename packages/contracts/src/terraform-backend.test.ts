import { describe, expect, it } from 'vitest';
import { diffAddresses, httpBackendBlock, summarizeState } from './terraform-backend.js';

describe('terraform state summaries', () => {
  it('lists instance addresses as `terraform state list` does', () => {
    const state = {
      version: 4,
      serial: 7,
      lineage: 'l-1',
      resources: [
        { mode: 'managed', type: 'terraform_data', name: 'one', instances: [{ attributes: {} }] },
        { mode: 'managed', type: 'terraform_data', name: 'many', instances: [{ index_key: 0 }, { index_key: 1 }] },
        { module: 'module.net', mode: 'data', type: 'x', name: 'y', instances: [{ index_key: 'a"b' }] },
        { mode: 'managed', type: 'gone', name: 'empty', instances: [] },
      ],
    };
    expect(summarizeState(JSON.stringify(state))).toEqual({
      serial: 7,
      lineage: 'l-1',
      addresses: [
        'module.net.data.x.y["a\\"b"]',
        'terraform_data.many[0]',
        'terraform_data.many[1]',
        'terraform_data.one',
      ],
    });
  });

  it('is null for text that is not a state', () => {
    for (const bad of ['', 'nope', '[]', '{"serial": 1}', '{"serial": "1", "lineage": "x"}'])
      expect(summarizeState(bad)).toBeNull();
  });

  it('diffs two address lists', () => {
    expect(diffAddresses(['a', 'b'], ['b', 'c'])).toEqual({ added: ['c'], removed: ['a'], kept: ['b'] });
  });

  it('writes a backend block without a password', () => {
    const block = httpBackendBlock('https://g.example/api/terraform/abc', 'ci');
    expect(block).toContain('address        = "https://g.example/api/terraform/abc"');
    expect(block).toContain('lock_method    = "LOCK"');
    expect(block).toContain('username       = "ci"');
    expect(block).not.toMatch(/password\s*=/);
  });
});
