import { ErrorCodes } from '@gantry/contracts';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppError } from '../../platform/errors.js';

/**
 * How much one restore may hold: at most this many objects in each section (templates, keys,
 * inventories, ..., a Semaphore backup's `integration_aliases` too) and in any one list inside an
 * object (an integration's matchers, a template's survey variables). With the body limit
 * (RESTORE_BODY_LIMIT) this bounds a restore's work; past it the answer is 413, nothing stored.
 */
export const RESTORE_SECTION_MAX = 5000;

/**
 * Objects handled (validated, written) between two turns of the event loop. On SQLite every
 * query is synchronous: without these breaks a large restore would hold the loop for seconds,
 * and /api/health with it.
 */
export const RESTORE_YIELD_EVERY = 10;

/** Objects and lists looked at between two turns while counting a document's lists. */
const WALK_YIELD_EVERY = 2000;

/**
 * The backup holds more objects of one kind than a restore takes: 413 with a stable `code` and
 * the section as `field` (the dotted path of the request it is about, as other refusals name it).
 */
export class RestoreTooLargeError extends AppError {
  constructor(section: string, count: number) {
    super(413, `The backup holds ${count} ${section}; a restore takes at most ${RESTORE_SECTION_MAX} of each kind`, {
      code: ErrorCodes.restoreSectionTooLarge,
      field: section,
      count,
      max: RESTORE_SECTION_MAX,
    });
  }
}

/**
 * Lets the event loop run once every `every` calls of `tick`, so other requests are answered
 * while a long piece of work goes on.
 */
export class Pacer {
  private count = 0;
  constructor(private readonly every = RESTORE_YIELD_EVERY) {}

  async tick(): Promise<void> {
    this.count += 1;
    if (this.count % this.every === 0) await nextTurn();
  }
}

/**
 * Refuses (RestoreTooLargeError) a restore body with a list longer than RESTORE_SECTION_MAX:
 * a top-level section is named as it is (`templates`), a nested list by its path without indexes
 * (`integrations.matchers`). Runs on the parsed JSON before any validation, in either format, and
 * walks it without recursion (any nesting depth) and with breaks for the event loop.
 */
export async function checkRestoreSize(body: unknown): Promise<void> {
  if (!isObject(body)) return;
  const stack: Array<{ value: unknown; path: string }> = Object.entries(body).map(([k, value]) => ({ value, path: k }));
  const pacer = new Pacer(WALK_YIELD_EVERY);
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { value, path } = item;
    if (Array.isArray(value)) {
      if (value.length > RESTORE_SECTION_MAX) throw new RestoreTooLargeError(path, value.length);
      for (const v of value) if (typeof v === 'object' && v !== null) stack.push({ value: v, path: `${path}[]` });
    } else if (isObject(value)) {
      // Elements of a list are named by the list: `integrations[].matchers` → `integrations.matchers`.
      const base = path.endsWith('[]') ? path.slice(0, -2) : path;
      for (const k in value) {
        const v = value[k];
        if (typeof v === 'object' && v !== null && Object.hasOwn(value, k))
          stack.push({ value: v, path: `${base}.${k}` });
      }
    }
    await pacer.tick();
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
