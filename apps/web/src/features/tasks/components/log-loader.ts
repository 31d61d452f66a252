import { LOG_BATCH_MS, TASK_OUTPUT_PAGE_SIZE, type TaskOutputPage, type TaskOutputQuery } from '@gantry/contracts';
import type { TaskLogMessage } from '../../../lib/realtime';
import { LogStore } from './log-store';

const MAX_WAIT_MS = 500;

/** Reads one page of the task's log (the API, or a fake in tests). */
export type FetchPage = (query: TaskOutputQuery) => Promise<TaskOutputPage>;

export interface LogLoaderOptions {
  pageSize?: number;
  /** How long scrolling must pause before the rows on screen are read. */
  debounceMs?: number;
  /** Past this many lines in memory, the pages farthest from the screen are forgotten. */
  maxLines?: number;
  /** Of a `gap`, at most this many pages (the newest) are read at once; the rest when scrolled to. */
  maxGapPages?: number;
}

/**
 * Fills a LogStore for one task: the first or newest page on open, live lines from the socket,
 * the pages that come into view while scrolling (each page asked once at a time), and the
 * ranges the socket reports it dropped. Pages are aligned (1…N, N+1…2N, …) so the same rows
 * are never asked for by two different requests.
 */
export class TaskLogLoader {
  readonly store: LogStore;
  /** Set when the first read failed; the view shows it. */
  error: unknown = null;
  /** The first page has arrived (or failed): until then the view shows it is loading. */
  started = false;
  private readonly pageSize: number;
  private readonly debounceMs: number;
  private readonly maxLines: number;
  private readonly maxGapPages: number;
  private readonly inFlight = new Set<number>();
  private tailInFlight = false;
  private tailAgain = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private waitingSince = 0;
  private visible: [number, number] = [1, 1];
  private disposed = false;
  private opened = false;
  private openedFinished = false;

  constructor(
    private readonly fetchPage: FetchPage,
    options: LogLoaderOptions = {},
  ) {
    this.pageSize = options.pageSize ?? TASK_OUTPUT_PAGE_SIZE;
    this.store = new LogStore(this.pageSize);
    this.debounceMs = options.debounceMs ?? 150;
    this.maxLines = options.maxLines ?? 100 * this.pageSize;
    this.maxGapPages = options.maxGapPages ?? 5;
  }

  /**
   * The first read, once: a finished task opens on its first page, a running one on its newest
   * (live lines that came before it are kept).
   */
  async open(finished: boolean): Promise<void> {
    if (this.opened || this.disposed) return;
    this.opened = true;
    this.openedFinished = finished;
    await this.read(finished ? { from_seq: 1, limit: this.pageSize } : { tail: true, limit: this.pageSize }, true);
    if (this.disposed) return;
    // The task ended (or the socket reopened) while this read was out: read what came since.
    if (this.tailAgain) {
      this.tailAgain = false;
      await this.catchUp();
    }
    // A task that just started may have said its first lines before this view subscribed to them
    // (they were sent to no one) and before they were stored (the server stores lines in batches
    // of LOG_BATCH_MS): read once more when those are surely stored, not when the next line comes.
    else if (!finished && this.store.lastSeq === 0) this.retry = setTimeout(() => void this.catchUp(), 2 * LOG_BATCH_MS);
  }

  /**
   * Reads what was stored after the last line known: after a reconnect (lines sent while the
   * socket was down were not heard) or when the task ends, so the end of the log is never missing.
   */
  async catchUp(): Promise<void> {
    if (this.disposed) return;
    // Asked while a read is out (the first one, or another catch-up): that read may be older than
    // what is asked for now (the task ended meanwhile), so one more follows it.
    if (!this.started) {
      // Before the first read nothing is known to follow; during it, only a running task's can be.
      if (this.opened && !this.openedFinished) this.tailAgain = true;
      return;
    }
    if (this.tailInFlight) {
      this.tailAgain = true;
      return;
    }
    this.tailInFlight = true;
    try {
      await this.read({ tail: true, limit: this.pageSize, from_seq: this.store.lastSeq + 1 }, false);
    } finally {
      this.tailInFlight = false;
    }
    if (this.tailAgain) {
      this.tailAgain = false;
      await this.catchUp();
    }
  }

  /** A message for this task from the socket. */
  onMessage(m: TaskLogMessage): void {
    if (this.disposed) return;
    switch (m.type) {
      case 'logs': {
        const known = this.store.lastSeq;
        this.store.put(m.from_seq, m.lines);
        this.trim();
        // Lines before these that never came (said before this view subscribed): read them now.
        if (this.started && m.from_seq > known + 1) void this.loadRange(known + 1, m.from_seq - 1, this.maxGapPages);
        break;
      }
      case 'log':
        // Servers that send per-line messages (not in subscribe mode): harmless to keep.
        this.store.put(m.seq ?? this.store.lastSeq + 1, [m]);
        break;
      case 'gap':
        this.store.extendTo(m.to_seq);
        void this.loadRange(m.from_seq, m.to_seq, this.maxGapPages);
        break;
    }
  }

  /**
   * The rows on screen: their missing pages are read once scrolling pauses, or at the latest
   * after MAX_WAIT_MS of constant change (a view following a busy log never pauses).
   */
  showing(first: number, last: number): void {
    this.visible = [first, last];
    if (!this.store.hasPending(first, last)) {
      clearTimeout(this.timer);
      this.timer = undefined;
      return;
    }
    const now = Date.now();
    if (this.timer === undefined) this.waitingSince = now;
    else if (now - this.waitingSince >= MAX_WAIT_MS) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.loadRange(...this.visible);
    }, this.debounceMs);
  }

  /** Reads the page holding `seq` now (a jump to a search result). */
  async loadAround(seq: number): Promise<void> {
    this.visible = [seq, seq];
    await this.loadRange(seq, seq);
  }

  /** Reads the pages of from…to that still have rows to read, the newest first, at most `maxPages`. */
  async loadRange(from: number, to: number, maxPages = Infinity): Promise<void> {
    const first = this.pageOf(Math.max(1, from));
    const last = this.pageOf(Math.max(1, Math.min(to, this.store.lastSeq)));
    const reads: Array<Promise<void>> = [];
    for (let p = last; p >= first && reads.length < maxPages; p--) {
      const [lo, hi] = this.pageRange(p);
      if (this.inFlight.has(p) || !this.store.hasPending(Math.max(lo, from), Math.min(hi, to))) continue;
      reads.push(this.loadPage(p));
    }
    await Promise.all(reads);
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    clearTimeout(this.retry);
    this.store.dispose();
  }

  private async loadPage(p: number): Promise<void> {
    const [lo, hi] = this.pageRange(p);
    this.inFlight.add(p);
    try {
      await this.read({ from_seq: lo, to_seq: hi, limit: this.pageSize }, false, p);
    } finally {
      this.inFlight.delete(p);
    }
  }

  /** One request; `first` marks the read that opens the view (its failure is shown). */
  private async read(query: TaskOutputQuery, first: boolean, pageIndex = -1): Promise<void> {
    let page: TaskOutputPage;
    try {
      page = await this.fetchPage(query);
    } catch (e) {
      // A page that failed stays pending and is asked for again when next in view.
      if (first && !this.disposed) {
        this.error = e;
        this.started = true;
        this.store.touch();
      }
      return;
    }
    if (this.disposed) return;
    this.apply(query, page);
    if (first) {
      this.started = true;
      this.error = null;
    }
    this.trim(pageIndex);
  }

  /** Puts a page's lines in place and marks what it proves about the numbers it spans. */
  private apply(query: TaskOutputQuery, page: TaskOutputPage): void {
    const store = this.store;
    store.putRows(page.lines);
    store.extendTo(page.last_seq ?? 0);
    const stored = page.last_seq ?? 0;
    const hi = Math.min(query.to_seq ?? Infinity, stored);
    const lo = query.from_seq ?? 1;
    const limit = query.limit ?? this.pageSize;
    const lines = page.lines;
    if (lines.length < limit) store.cover(lo, hi);
    else if (query.tail) store.cover(lines[0]!.seq, hi);
    else store.cover(lo, lines[lines.length - 1]!.seq);
  }

  /**
   * Keeps memory bounded: forgets whole pages, the farthest from the screen first, never the
   * pages on screen nor `keep` (the page just read).
   */
  private trim(keep = -1): void {
    const store = this.store;
    const [first, last] = [this.pageOf(Math.max(1, this.visible[0])), this.pageOf(Math.max(1, this.visible[1]))];
    const center = (first + last) / 2;
    while (store.size > this.maxLines) {
      let farthest = -1;
      for (const b of store.heldBlocks()) {
        if ((b >= first && b <= last) || b === keep) continue;
        if (farthest < 0 || Math.abs(b - center) > Math.abs(farthest - center)) farthest = b;
      }
      if (farthest < 0) return;
      store.dropBlock(farthest);
    }
  }

  private pageOf(seq: number): number {
    return Math.floor((seq - 1) / this.pageSize);
  }

  private pageRange(p: number): [number, number] {
    return [p * this.pageSize + 1, (p + 1) * this.pageSize];
  }
}
