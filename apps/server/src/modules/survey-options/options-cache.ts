import type { SurveyOption, SurveyOptions } from '@gantry/contracts';

/** Why a source failed: the English text and a stable code (ErrorCodes). */
export class OptionsSourceError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** Entries kept per map; past it the oldest goes (keys include URLs users type). */
const MAX_ENTRIES = 1000;
/** A failure is remembered this long at most, so a fixed source is read again soon. */
const FAILURE_MS = 10_000;

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value!);
}

/**
 * Options of slow sources (a URL, an inventory listing) read at most once per `ttlMs` per key,
 * with the last good list kept for when a read fails. In memory, per node: another node of a
 * cluster reads the source itself, and a restart forgets the last good lists (both acceptable for
 * a list a form offers; the task start checks answers against a fresh read or these).
 */
export class OptionsCache {
  private readonly answers = new Map<string, { result: SurveyOptions; at: number }>();
  private readonly good = new Map<string, { options: SurveyOption[]; fetchedAt: string }>();
  private readonly reading = new Map<string, Promise<SurveyOptions>>();

  constructor(private readonly now: () => Date) {}

  /** The options under `key`: a recent answer, else `load()`'s (concurrent callers share one read). */
  async get(key: string, ttlMs: number, load: () => Promise<SurveyOption[]>): Promise<SurveyOptions> {
    const cached = this.answers.get(key);
    // A failure is kept shorter, so a source that works again is read again soon.
    const keepMs = cached?.result.error ? Math.min(ttlMs, FAILURE_MS) : ttlMs;
    if (cached && this.now().getTime() - cached.at < keepMs) return cached.result;
    const pending = this.reading.get(key);
    if (pending) return pending;
    const read = this.read(key, load).finally(() => this.reading.delete(key));
    this.reading.set(key, read);
    return read;
  }

  private async read(key: string, load: () => Promise<SurveyOption[]>): Promise<SurveyOptions> {
    const at = this.now();
    let result: SurveyOptions;
    try {
      const options = await load();
      remember(this.good, key, { options, fetchedAt: at.toISOString() });
      result = { options, error: null, code: null, fetched_at: at.toISOString() };
    } catch (e) {
      if (!(e instanceof OptionsSourceError)) throw e;
      const last = this.good.get(key);
      result = { options: last?.options ?? [], error: e.message, code: e.code, fetched_at: last?.fetchedAt ?? null };
    }
    remember(this.answers, key, { result, at: at.getTime() });
    return result;
  }
}
