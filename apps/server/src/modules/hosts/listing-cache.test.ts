import { describe, expect, it } from 'vitest';
import { ListingCache } from './listing-cache.js';

describe('ListingCache', () => {
  const setup = () => {
    let now = 0;
    const cache = new ListingCache<string>(() => new Date(now));
    let reads = 0;
    const load = (value: string) => async () => {
      reads += 1;
      return value;
    };
    return { cache, load, reads: () => reads, advance: (ms: number) => (now += ms) };
  };

  it('reuses a listing within its time while the version is the same', async () => {
    const { cache, load, reads, advance } = setup();
    expect(await cache.get('1', 'v1', 60_000, load('a'))).toBe('a');
    advance(59_000);
    expect(await cache.get('1', 'v1', 60_000, load('b'))).toBe('a');
    expect(reads()).toBe(1);
    // Another version (the inventory was edited) reads at once; past the time, so does the same one.
    expect(await cache.get('1', 'v2', 60_000, load('c'))).toBe('c');
    advance(60_000);
    expect(await cache.get('1', 'v2', 60_000, load('d'))).toBe('d');
    expect(reads()).toBe(3);
    // A time of 0 reads every time.
    expect(await cache.get('1', 'v2', 0, load('e'))).toBe('e');
  });

  it('keeps a failure for a shorter while, and shares one read between concurrent callers', async () => {
    const { cache, load, reads, advance } = setup();
    let failures = 0;
    const fail = async () => {
      failures += 1;
      throw new Error('down');
    };
    await expect(cache.get('1', 'v', 60_000, fail)).rejects.toThrow('down');
    advance(5_000);
    await expect(cache.get('1', 'v', 60_000, fail)).rejects.toThrow('down');
    expect(failures).toBe(1);
    advance(5_000);
    const [x, y] = await Promise.all([
      cache.get('1', 'v', 60_000, load('ok')),
      cache.get('1', 'v', 60_000, load('no')),
    ]);
    expect([x, y, reads()]).toEqual(['ok', 'ok', 1]);
  });
});
