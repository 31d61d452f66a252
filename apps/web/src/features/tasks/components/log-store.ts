/** A line as the store keeps it (the socket's `logs` lines and the API's rows both fit). */
export interface StoredLine {
  time: string;
  output: string;
}

/** A row of the view: a line, a number the server has no line for, or one not loaded yet. */
export type RowState = 'line' | 'empty' | 'pending';

/**
 * The lines of one task's log that the console holds, by sequence number (1…lastSeq). Lines
 * arrive in any order (pages, live batches, gaps) and are put in place in O(lines); nothing is
 * ever sorted. Ranges read over HTTP are remembered as covered, so a number missing inside one
 * (a remote runner may skip some) shows as an empty row instead of being asked for again.
 * Listeners are told of changes at most once per animation frame.
 */
export class LogStore {
  private readonly text: Array<string | undefined> = [];
  private readonly times: Array<string | undefined> = [];
  /** Sorted, disjoint, inclusive [from, to] ranges read over HTTP. */
  private covered: Array<[number, number]> = [];
  private readonly listeners = new Set<() => void>();
  private frame: number | undefined;
  /** The highest sequence number known (stored on the server or received live). */
  lastSeq = 0;
  /** Bumped on every change; the view renders when it moves. */
  version = 0;
  /** Lines held in memory. */
  size = 0;
  /** Lines held per block of `blockSize` numbers (block b holds b·size+1 … (b+1)·size). */
  private readonly blocks = new Map<number, number>();

  /** `blockSize`: the unit in which lines are counted and forgotten (the loader's page size). */
  constructor(readonly blockSize = 1000) {}

  readonly subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  readonly getVersion = (): number => this.version;

  /** Consecutive lines from `fromSeq` on. */
  put(fromSeq: number, lines: readonly StoredLine[]): void {
    for (let i = 0; i < lines.length; i++) this.set(fromSeq + i, lines[i]!);
    if (lines.length) this.extendTo(fromSeq + lines.length - 1);
    this.changed();
  }

  /** Lines with their own numbers (an API page). */
  putRows(rows: ReadonlyArray<StoredLine & { seq: number }>): void {
    let max = 0;
    for (const r of rows) {
      this.set(r.seq, r);
      if (r.seq > max) max = r.seq;
    }
    this.extendTo(max);
    this.changed();
  }

  /** The log has at least `seq` lines (a `gap` message, a page's `last_seq`). */
  extendTo(seq: number): void {
    if (seq <= this.lastSeq) return;
    this.lastSeq = seq;
    this.changed();
  }

  /** Every stored line in from…to is now held: numbers still missing there have no line. */
  cover(from: number, to: number): void {
    if (to < from) return;
    const merged: Array<[number, number]> = [];
    let lo = from;
    let hi = to;
    for (const [a, b] of this.covered) {
      if (b + 1 < lo || a > hi + 1) merged.push([a, b]);
      else {
        lo = Math.min(lo, a);
        hi = Math.max(hi, b);
      }
    }
    merged.push([lo, hi]);
    merged.sort((x, y) => x[0] - y[0]);
    this.covered = merged;
    this.changed();
  }

  /** Forgets the lines of one block (memory bound); they show as not loaded again. */
  dropBlock(block: number): void {
    const from = block * this.blockSize + 1;
    const to = from + this.blockSize - 1;
    for (let seq = from; seq <= to; seq++) {
      if (this.text[seq - 1] === undefined) continue;
      this.text[seq - 1] = undefined;
      this.times[seq - 1] = undefined;
      this.size -= 1;
    }
    this.blocks.delete(block);
    const kept: Array<[number, number]> = [];
    for (const [a, b] of this.covered) {
      if (b < from || a > to) kept.push([a, b]);
      else {
        if (a < from) kept.push([a, from - 1]);
        if (b > to) kept.push([to + 1, b]);
      }
    }
    this.covered = kept;
    this.changed();
  }

  state(seq: number): RowState {
    if (this.text[seq - 1] !== undefined) return 'line';
    return this.isCovered(seq) ? 'empty' : 'pending';
  }

  line(seq: number): string | undefined {
    return this.text[seq - 1];
  }

  time(seq: number): string | undefined {
    return this.times[seq - 1];
  }

  /** Whether any row of from…to still has to be read. */
  hasPending(from: number, to: number): boolean {
    for (let seq = Math.max(1, from); seq <= Math.min(to, this.lastSeq); seq++) if (this.state(seq) === 'pending') return true;
    return false;
  }

  /** The blocks that hold lines. */
  heldBlocks(): IterableIterator<number> {
    return this.blocks.keys();
  }

  /** Something besides the lines changed (e.g. the loader's error): render again. */
  touch(): void {
    this.changed();
  }

  private set(seq: number, line: StoredLine): void {
    if (seq < 1) return;
    if (this.text[seq - 1] === undefined) {
      this.size += 1;
      const b = Math.floor((seq - 1) / this.blockSize);
      this.blocks.set(b, (this.blocks.get(b) ?? 0) + 1);
    }
    this.text[seq - 1] = line.output;
    this.times[seq - 1] = line.time;
  }

  private isCovered(seq: number): boolean {
    let lo = 0;
    let hi = this.covered.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [a, b] = this.covered[mid]!;
      if (seq < a) hi = mid - 1;
      else if (seq > b) lo = mid + 1;
      else return true;
    }
    return false;
  }

  private changed(): void {
    this.version += 1;
    if (this.frame !== undefined || typeof window === 'undefined') return;
    this.frame = window.requestAnimationFrame(() => {
      this.frame = undefined;
      this.listeners.forEach((l) => l());
    });
  }

  /** Stops pending notifications (the dialog closed). */
  dispose(): void {
    if (this.frame !== undefined) window.cancelAnimationFrame(this.frame);
    this.frame = undefined;
    this.listeners.clear();
  }
}
