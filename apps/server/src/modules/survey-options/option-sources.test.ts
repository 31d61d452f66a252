import { describe, expect, it } from 'vitest';
import { OptionsCache, OptionsSourceError } from './options-cache.js';
import { cascadeOptions } from '@gantry/contracts';
import { inventoryOptions, optionsFromJson } from './option-sources.js';

describe('optionsFromJson', () => {
  it('takes strings as name and value, objects as they are, numbers as text', () => {
    expect(optionsFromJson('["a", " b ", 3]')).toEqual([
      { name: 'a', value: 'a' },
      { name: 'b', value: ' b ' },
      { name: '3', value: '3' },
    ]);
    expect(
      optionsFromJson('[{"name": "Europe", "value": "eu"}, {"value": "us"}, {"name": "Port", "value": 8080}]'),
    ).toEqual([
      { name: 'Europe', value: 'eu' },
      { name: 'us', value: 'us' },
      { name: 'Port', value: '8080' },
    ]);
  });

  it('offers a value given twice once', () => {
    expect(optionsFromJson('["a", {"name": "A again", "value": "a"}]')).toEqual([{ name: 'a', value: 'a' }]);
  });

  it.each(['{"a": 1}', '"a"', 'not json', '[null]', '[["a"]]', '[{"name": "no value"}]', '[{"value": {}}]'])(
    'refuses %s',
    (text) => {
      expect(optionsFromJson(text)).toBeNull();
    },
  );
});

describe('cascadeOptions', () => {
  const source = {
    kind: 'parameter' as const,
    parameter: 'region',
    options: {
      eu: [{ name: 'Paris', value: 'par' }],
      us: [
        { name: 'Ohio', value: 'ohio' },
        { name: 'Paris, Texas', value: 'par' },
      ],
    },
  };

  it("offers the list of the parent's answer, none without one", () => {
    expect(cascadeOptions(source, { region: 'eu' })).toEqual([{ name: 'Paris', value: 'par' }]);
    expect(cascadeOptions(source, { region: 'asia' })).toEqual([]);
    expect(cascadeOptions(source, {})).toEqual([]);
    expect(cascadeOptions(source, { region: '' })).toEqual([]);
  });

  it('joins the lists of a multiple-choice parent, each value once', () => {
    expect(cascadeOptions(source, { region: ['eu', 'us'] }).map((o) => o.value)).toEqual(['par', 'ohio']);
  });

  it("never reads the options object's prototype", () => {
    expect(cascadeOptions(source, { region: 'constructor' })).toEqual([]);
    expect(cascadeOptions(source, { region: '__proto__' })).toEqual([]);
  });
});

describe('inventoryOptions', () => {
  const listing = {
    hosts: [{ name: 'web2' }, { name: 'db1' }, { name: 'web2' }],
    groups: ['all', 'ungrouped', 'web', 'db'],
  };
  it("lists hosts or groups sorted, without Ansible's implicit groups", () => {
    expect(inventoryOptions(listing, 'inventory_hosts').map((o) => o.value)).toEqual(['db1', 'web2']);
    expect(inventoryOptions(listing, 'inventory_groups').map((o) => o.value)).toEqual(['db', 'web']);
  });
});

describe('OptionsCache', () => {
  let now = 0;
  const cache = () => new OptionsCache(() => new Date(now));

  it('reads once per time to live, then again', async () => {
    const c = cache();
    let reads = 0;
    const load = async () => [{ name: String(++reads), value: String(reads) }];
    now = 1_000_000;
    expect((await c.get('k', 60_000, load)).options[0]!.value).toBe('1');
    now += 59_000;
    expect((await c.get('k', 60_000, load)).options[0]!.value).toBe('1');
    now += 2_000;
    expect((await c.get('k', 60_000, load)).options[0]!.value).toBe('2');
  });

  it('keeps the last good options with the failure, and reads again soon after one', async () => {
    const c = cache();
    now = 5_000_000;
    await c.get('k', 60_000, async () => [{ name: 'a', value: 'a' }]);
    const goodAt = new Date(now).toISOString();
    now += 61_000;
    const failed = await c.get('k', 60_000, async () => {
      throw new OptionsSourceError('down', 'url_status');
    });
    expect(failed).toEqual({
      options: [{ name: 'a', value: 'a' }],
      error: 'down',
      code: 'url_status',
      fetched_at: goodAt,
    });
    now += 11_000;
    const again = await c.get('k', 60_000, async () => [{ name: 'b', value: 'b' }]);
    expect(again.options).toEqual([{ name: 'b', value: 'b' }]);
    expect(again.error).toBeNull();
  });

  it('answers no options when a source never worked', async () => {
    const failed = await cache().get('k', 60_000, async () => {
      throw new OptionsSourceError('refused', 'url_private_address');
    });
    expect(failed).toEqual({ options: [], error: 'refused', code: 'url_private_address', fetched_at: null });
  });

  it('shares one read among concurrent callers', async () => {
    const c = cache();
    let reads = 0;
    const load = async () => {
      reads += 1;
      await new Promise((r) => setTimeout(r, 20));
      return [];
    };
    await Promise.all([c.get('k', 0, load), c.get('k', 0, load), c.get('k', 0, load)]);
    expect(reads).toBe(1);
  });
});
