import { describe, expect, it } from 'vitest';
import {
  MAX_LIST_HEIGHT,
  isScaled,
  listHeight,
  maxOffset,
  maxScrollTop,
  nextOffset,
  offsetAt,
  offsetOfRow,
  rowTop,
  rowsInView,
  scrollTopAt,
  type LogGeometry,
  type LogPosition,
} from './log-scroll';

const ROW = 22;
const geometry = (count: number): LogGeometry => ({ count, rowHeight: ROW, viewport: 600, before: 8, after: 8 });

/** The rows a reader sees at `pos`: those whose box overlaps the view, by the same placement the view uses. */
function seen(pos: LogPosition, g: LogGeometry): number[] {
  const [first, last] = rowsInView(pos.offset, g);
  const rows: number[] = [];
  for (let i = first; i <= last; i++) {
    const y = g.before + rowTop(i, pos, g) - pos.scrollTop;
    if (y + g.rowHeight > 0 && y < g.viewport) rows.push(i);
  }
  return rows;
}

/** Scrolls from `pos` by `delta` px as a browser would (clamped to the element). */
function scrollBy(pos: LogPosition, delta: number, g: LogGeometry): LogPosition {
  const scrollTop = Math.min(Math.max(pos.scrollTop + delta, 0), maxScrollTop(g));
  return { scrollTop, offset: nextOffset(pos, scrollTop, g) };
}

describe('a log short enough for the browser', () => {
  const g = geometry(200_000);

  it('is one element as high as its rows, scrolled one to one', () => {
    expect(isScaled(g)).toBe(false);
    expect(listHeight(g)).toBe(200_000 * ROW);
    for (const top of [0, 1, 12_345, maxScrollTop(g)]) {
      expect(offsetAt(top, g)).toBe(top);
      expect(scrollTopAt(top, g)).toBe(top);
      expect(nextOffset({ scrollTop: 0, offset: 0 }, top, g)).toBe(top);
    }
    // Rows sit at their own place: the browser moves them, nothing is shifted.
    expect(rowTop(1000, { scrollTop: 500, offset: 500 }, g)).toBe(1000 * ROW);
  });

  it('shows its last row at the bottom of the element', () => {
    const end = { scrollTop: maxScrollTop(g), offset: maxOffset(g) };
    expect(seen(end, g).at(-1)).toBe(199_999);
  });
});

describe.each([1_600_000, 3_000_000, 50_000_000])('a log of %i lines', (count) => {
  const g = geometry(count);
  const top = maxScrollTop(g);

  it('is capped well under Chrome’s 33.5M px, and maps both ends to both ends', () => {
    expect(isScaled(g)).toBe(true);
    expect(listHeight(g)).toBe(MAX_LIST_HEIGHT);
    expect(listHeight(g)).toBeLessThan(33_554_400);
    expect(offsetAt(0, g)).toBe(0);
    expect(offsetAt(top, g)).toBe(maxOffset(g));
    expect(scrollTopAt(maxOffset(g), g)).toBe(top);
  });

  it('reaches its last line at the end of the scrollbar, by a jump or after small moves', () => {
    const end = { scrollTop: top, offset: nextOffset({ scrollTop: 0, offset: 0 }, top, g) };
    expect(seen(end, g).at(-1)).toBe(count - 1);
    // Wheel steps that reach the element's end land on the log's end too, whatever drift came before.
    let pos: LogPosition = { scrollTop: top - 350, offset: 1234 };
    for (let i = 0; i < 4; i++) pos = scrollBy(pos, 100, g);
    expect(pos.scrollTop).toBe(top);
    expect(seen(pos, g).at(-1)).toBe(count - 1);
    // And the top shows line 1.
    expect(seen({ scrollTop: 0, offset: nextOffset(pos, 0, g) }, g)[0]).toBe(0);
  });

  it('maps a position to a line and back for any line', () => {
    for (const line of [0, 1, 1_234_566, Math.floor(count / 2), count - 2, count - 1]) {
      const offset = offsetOfRow(line, g, 'start', 2);
      const pos = { scrollTop: scrollTopAt(offset, g), offset };
      expect(pos.scrollTop).toBeGreaterThanOrEqual(0);
      expect(pos.scrollTop).toBeLessThanOrEqual(top);
      if (line < count) expect(seen(pos, g)).toContain(Math.min(line, count - 1));
      // Read back from the scrollbar alone (a thumb put where the rows are), the same rows show.
      expect(Math.abs(offsetAt(pos.scrollTop, g) - offset)).toBeLessThan(1e-3);
      const centred = offsetOfRow(line, g, 'center');
      const mid = seen({ scrollTop: scrollTopAt(centred, g), offset: centred }, g);
      expect(mid).toContain(line);
    }
  });

  it('moves by lines on a wheel notch, an arrow key and a page, not by thousands', () => {
    const start = offsetOfRow(Math.floor(count / 3), g, 'start');
    const at = { scrollTop: scrollTopAt(start, g), offset: start };
    const firstRow = (p: LogPosition) => seen(p, g)[0]!;
    // A wheel notch (100 px) moves 4–5 rows, as in a short log.
    expect(firstRow(scrollBy(at, 100, g)) - firstRow(at)).toBeGreaterThanOrEqual(4);
    expect(firstRow(scrollBy(at, 100, g)) - firstRow(at)).toBeLessThanOrEqual(5);
    // An arrow key (40 px): 1–2 rows, both ways.
    expect(firstRow(at) - firstRow(scrollBy(at, -40, g))).toBeLessThanOrEqual(2);
    expect(firstRow(at) - firstRow(scrollBy(at, -40, g))).toBeGreaterThanOrEqual(1);
    // PageDown (most of a view): the rows that were at the bottom come to the top.
    const before = seen(at, g);
    const after = seen(scrollBy(at, 560, g), g);
    expect(after[0]).toBeGreaterThan(before[0]!);
    expect(after[0]).toBeLessThanOrEqual(before.at(-1)!);
    // Rows keep their place in the element during small moves: the browser scrolls them.
    const moved = scrollBy(at, 100, g);
    expect(rowTop(5, moved, g)).toBe(rowTop(5, at, g));
  });

  it('jumps proportionally when the thumb is dragged', () => {
    const at = { scrollTop: 0, offset: 0 };
    const half = scrollBy(at, top / 2, g);
    expect(half.offset).toBeCloseTo(maxOffset(g) / 2, 3);
    expect(seen(half, g)).toContain(Math.floor(count / 2));
  });
});

describe('rowsInView', () => {
  it('adds overscan within the log and nothing for an empty one', () => {
    const g = geometry(100);
    expect(rowsInView(0, g, 30)).toEqual([0, 56]);
    expect(rowsInView(maxOffset(g), g, 30)).toEqual([43, 99]);
    expect(rowsInView(0, geometry(0), 30)).toEqual([0, -1]);
  });

  it('clamps a line past either end to the log', () => {
    const g = geometry(3_000_000);
    expect(offsetOfRow(-5, g, 'start')).toBe(0);
    expect(offsetOfRow(10_000_000, g, 'start')).toBe(maxOffset(g));
  });
});
