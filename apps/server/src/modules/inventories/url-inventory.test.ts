import { inventoryInputSchema, isInventoryUrl } from '@gantry/contracts';
import { describe, expect, it } from 'vitest';
import { inventoryFileName, parseInventoryList } from '../../engine/inventory-list.js';
import { SafeFetchError, type SafeFetchResult } from '../../platform/safe-fetch.js';
import { readUrlInventory, redactedUrl } from './url-inventory.js';

describe('URL inventories', () => {
  it('takes http(s) URLs only, without credentials or control characters', () => {
    for (const ok of [
      'https://cmdb.example.com/inventory.yml',
      'http://10.0.0.5:8080/inv?token=abc',
      'https://[::1]/x',
    ])
      expect(isInventoryUrl(ok), ok).toBe(true);
    for (const bad of [
      '',
      'ftp://example.com/x',
      'file:///etc/hosts',
      'https://user:pw@example.com/x',
      'https://user@example.com/x',
      'https://exa mple.com/',
      'https://example.com/\u0007',
      'javascript:alert(1)',
      '/relative/path',
      `https://example.com/${'a'.repeat(2100)}`,
    ])
      expect(isInventoryUrl(bad), bad).toBe(false);
  });

  it('refuses a bad URL on save with its code and field, and drops a branch a URL cannot have', () => {
    const bad = inventoryInputSchema.safeParse({ name: 'x', type: 'url', inventory: 'https://u:p@example.com/' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]).toMatchObject({ path: ['inventory'], params: { code: 'inventory_url_invalid' } });
    const ok = inventoryInputSchema.parse({
      name: 'x',
      type: 'url',
      inventory: 'https://example.com/i',
      git_branch: 'main',
      repository_id: 3,
    });
    expect(ok).toMatchObject({ repository_id: null, git_branch: null });
    const branch = inventoryInputSchema.safeParse({
      name: 'x',
      type: 'file',
      inventory: 'hosts',
      git_branch: '--upload-pack=x',
    });
    expect(branch.success).toBe(false);
  });

  it('fetches through safe-fetch with the limits, and names the failure without the query', async () => {
    const calls: unknown[] = [];
    const answer = (r: SafeFetchResult) => async (url: string, opts: unknown) => {
      calls.push([url, opts]);
      return r;
    };
    expect(
      await readUrlInventory(
        'https://cmdb.example.com/i?token=t',
        ['cmdb.example.com'],
        answer({ status: 200, contentType: 'text/plain', body: '[web]\na\n' }),
      ),
    ).toBe('[web]\na\n');
    expect(calls[0]).toEqual([
      'https://cmdb.example.com/i?token=t',
      { timeoutMs: 15_000, maxBytes: 4 * 1024 * 1024, allowedHosts: ['cmdb.example.com'] },
    ]);
    await expect(
      readUrlInventory('https://cmdb.example.com/i?token=t', [], answer({ status: 500, contentType: null, body: 'x' })),
    ).rejects.toThrow('https://cmdb.example.com/i answered with HTTP 500');
    await expect(
      readUrlInventory('https://cmdb.example.com/i', [], answer({ status: 200, contentType: null, body: '  \n' })),
    ).rejects.toThrow(/empty inventory/);
    const refused = async () => {
      throw new SafeFetchError('The address is private', 'url_private_address');
    };
    await expect(readUrlInventory('http://10.0.0.1/i?secret=s', [], refused)).rejects.toThrow(
      'The inventory could not be fetched from http://10.0.0.1/i: The address is private',
    );
    await expect(readUrlInventory('ftp://x/i', [], refused)).rejects.toThrow(/not an http\(s\) URL/);
    expect(redactedUrl('https://h:8443/p/a?x=1#f')).toBe('https://h:8443/p/a');
  });

  it('writes fetched text as INI or YAML by its content', () => {
    expect(inventoryFileName('[web]\nhost1\n')).toBe('inventory.ini');
    expect(inventoryFileName('host1\nhost2 ansible_host=1.2.3.4\n')).toBe('inventory.ini');
    expect(inventoryFileName('# hosts\nall:\n  hosts:\n    a:\n')).toBe('inventory.yml');
    expect(inventoryFileName('---\nall: {}\n')).toBe('inventory.yml');
    expect(inventoryFileName('{"all": {"hosts": ["a"]}}')).toBe('inventory.yml');
  });
});

describe('parseInventoryList', () => {
  it('reads hosts, inherited groups and variables; hosts without variables too', () => {
    const json = JSON.stringify({
      _meta: { hostvars: { a: { x: 1 }, '10.0.0.2': {} } },
      all: { children: ['ungrouped', 'prod'] },
      prod: { children: ['web'] },
      web: { hosts: ['a', 'b'] },
      ungrouped: { hosts: ['10.0.0.2'] },
    });
    expect(parseInventoryList(json)).toEqual({
      hosts: [
        { name: '10.0.0.2', groups: ['ungrouped'], vars: {} },
        { name: 'a', groups: ['prod', 'web'], vars: { x: 1 } },
        { name: 'b', groups: ['prod', 'web'], vars: {} },
      ],
      groups: ['prod', 'ungrouped', 'web'],
    });
    expect(() => parseInventoryList('not json')).toThrow(/JSON/);
    expect(() => parseInventoryList('[1]')).toThrow(/object/);
  });
});
