/**
 * The log view's geometry, as pure functions. A list of `count` rows of `rowHeight` px would need
 * an element of count × rowHeight px, and browsers cap an element's height (Chrome at about
 * 33.5M px: 1.5M rows of 22 px). Past MAX_LIST_HEIGHT the list's element stays that high and the
 * scroll position is mapped onto the rows' own ("content") position: proportionally for a jump
 * (the scrollbar's thumb, Home, End), one to one for a small move (wheel, arrows, PageUp/Down) so
 * those still move by lines, not by thousands of them. Below it, both positions are the same.
 */

/** Well under every browser's cap (Chrome's 33,554,400 px, Firefox's 17,895,697 px). */
export const MAX_LIST_HEIGHT = 15_000_000;

export interface LogGeometry {
  /** Rows in the log. */
  count: number;
  rowHeight: number;
  /** The scrolling element's visible height (clientHeight). */
  viewport: number;
  /** Pixels of the scrolled content above the rows (padding, a message). */
  before: number;
  /** Pixels below the rows. */
  after: number;
  /** The highest the rows' element may be (tests set it low). */
  maxHeight?: number;
}

/** Where the view is: the element's scrollTop and the rows' content position it stands for. */
export interface LogPosition {
  scrollTop: number;
  offset: number;
}

const clamp = (n: number, lo: number, hi: number) => Math.min(Math.max(n, lo), hi);

/** The rows' own height, uncapped. */
export function contentHeight(g: LogGeometry): number {
  return g.count * g.rowHeight;
}

/** The height given to the rows' element. */
export function listHeight(g: LogGeometry): number {
  return Math.min(contentHeight(g), g.maxHeight ?? MAX_LIST_HEIGHT);
}

/** Whether the list is capped, so scroll and content positions differ. */
export function isScaled(g: LogGeometry): boolean {
  return contentHeight(g) > listHeight(g);
}

/** The element's largest scrollTop. */
export function maxScrollTop(g: LogGeometry): number {
  return Math.max(0, g.before + listHeight(g) + g.after - g.viewport);
}

/** The largest content position: the last row at the bottom of the view. */
export function maxOffset(g: LogGeometry): number {
  return Math.max(0, g.before + contentHeight(g) + g.after - g.viewport);
}

/** The content position a scrollTop stands for, on its own (a jump). */
export function offsetAt(scrollTop: number, g: LogGeometry): number {
  const range = maxScrollTop(g);
  if (!isScaled(g)) return clamp(scrollTop, 0, range);
  if (range <= 0) return 0;
  return (clamp(scrollTop, 0, range) / range) * maxOffset(g);
}

/** The scrollTop that stands for a content position (offsetAt's inverse). */
export function scrollTopAt(offset: number, g: LogGeometry): number {
  const range = maxOffset(g);
  if (!isScaled(g)) return clamp(offset, 0, range);
  if (range <= 0) return 0;
  return (clamp(offset, 0, range) / range) * maxScrollTop(g);
}

/**
 * The content position after the element scrolled from `prev` to `scrollTop`. A move of up to
 * two views is taken as it is (the wheel, arrow keys, PageUp/Down, a click in the scrollbar's
 * track); a longer one (dragging the thumb) and the two ends map proportionally.
 */
export function nextOffset(prev: LogPosition, scrollTop: number, g: LogGeometry): number {
  // Uncapped, the element's own position is the rows' (also when a measure is a pixel off).
  if (!isScaled(g)) return Math.max(0, scrollTop);
  const top = maxScrollTop(g);
  if (scrollTop <= 0) return 0;
  if (scrollTop >= top - 0.5) return maxOffset(g);
  const delta = scrollTop - prev.scrollTop;
  if (Math.abs(delta) <= 2 * g.viewport) return clamp(prev.offset + delta, 0, maxOffset(g));
  return offsetAt(scrollTop, g);
}

/** The first and last row index (0-based) at least partly in view at `offset`, plus `overscan` each side. */
export function rowsInView(offset: number, g: LogGeometry, overscan = 0): [number, number] {
  if (g.count <= 0) return [0, -1];
  const top = offset - g.before;
  const first = Math.floor(top / g.rowHeight);
  const last = Math.ceil((top + g.viewport) / g.rowHeight) - 1;
  return [clamp(first - overscan, 0, g.count - 1), clamp(last + overscan, 0, g.count - 1)];
}

/**
 * Where row `index` goes inside the rows' element when the view stands at `pos`: its content
 * position, moved by the same shift as the whole view (none when the list is not capped).
 */
export function rowTop(index: number, pos: LogPosition, g: LogGeometry): number {
  return index * g.rowHeight - (pos.offset - pos.scrollTop);
}

/**
 * The content position that shows row `index`: at the top with `margin` rows above it
 * ('start'), or in the middle ('center'); clamped to the list.
 */
export function offsetOfRow(index: number, g: LogGeometry, align: 'start' | 'center', margin = 0): number {
  const y = g.before + index * g.rowHeight;
  const want = align === 'start' ? y - margin * g.rowHeight : y + g.rowHeight / 2 - g.viewport / 2;
  return clamp(want, 0, maxOffset(g));
}
