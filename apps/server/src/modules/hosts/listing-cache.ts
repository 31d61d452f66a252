/** Entries kept; past it the oldest goes (one per inventory, so only a very large install reaches it). */
const MAX_ENTRIES = 1000;
/** A failure is remembered this long at most, so a fixed inventory is read again soon. */
const FAILURE_MS = 10_000;

interface Entry<V> {
  version: string;
  at: number;
  result: { ok: true; value: V } | { ok: false; error: Error };
}

/**
 * Listings of slow sources (an inventory: a sandboxed `ansible-inventory`, a URL fetched) reused
 * for `ttlMs` per key while the source's `version` (what the listing reads: its text, URL,
 * repository, branch...) is the same, so a page reload does not read every source again; an edit
 * reads it at once. Failures are reused too, shorter. Concurrent callers share one read. In
 * memory, per node, as survey-options/options-cache.ts.
 */
export class ListingCache<V> {
  private readonly kept = new Map<string, Entry<V>>();
  private readonly reading = new Map<string, Promise<V>>();

  constructor(private readonly now: () => Date) {}

  async get(key: string, version: string, ttlMs: number, load: () => Promise<V>): Promise<V> {
    const hit = this.kept.get(key);
    if (hit && hit.version === version) {
      const keepMs = hit.result.ok ? ttlMs : Math.min(ttlMs, FAILURE_MS);
      if (this.now().getTime() - hit.at < keepMs) {
        if (hit.result.ok) return hit.result.value;
        throw hit.result.error;
      }
    }
    const readKey = `${key}\n${version}`;
    const pending = this.reading.get(readKey);
    if (pending) return pending;
    const read = this.read(key, version, load).finally(() => this.reading.delete(readKey));
    this.reading.set(readKey, read);
    return read;
  }

  private async read(key: string, version: string, load: () => Promise<V>): Promise<V> {
    const at = this.now().getTime();
    let result: Entry<V>['result'];
    try {
      result = { ok: true, value: await load() };
    } catch (e) {
      result = { ok: false, error: e as Error };
    }
    this.kept.delete(key);
    this.kept.set(key, { version, at, result });
    if (this.kept.size > MAX_ENTRIES) this.kept.delete(this.kept.keys().next().value!);
    if (result.ok) return result.value;
    throw result.error;
  }
}
