import { LOG_ROW_HEIGHT } from '@gantry/contracts';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { isScaled, maxOffset, nextOffset, scrollTopAt, type LogGeometry, type LogPosition } from './log-scroll';

/** Space below the last row (the list's own element adds none). */
export const LOG_PAD_BOTTOM = 8;
/** How long scrolling must pause before the scrollbar's thumb is put back where the rows are. */
const RESYNC_MS = 200;

export interface LogScroll {
  /** The scrolling element. */
  parent: React.RefObject<HTMLDivElement | null>;
  /** The rows' element (its top is measured: a message may sit above it). */
  list: React.RefObject<HTMLDivElement | null>;
  geometry: LogGeometry;
  position: LogPosition;
  /** Whether the view follows new lines (it is at the end). */
  atEnd: React.RefObject<boolean>;
  /** Shows the content position `offset` (see log-scroll.ts); stops following. */
  moveTo(offset: number): void;
  /** Shows the end and follows new lines again. */
  toEnd(): void;
  /** The geometry of the latest render (for handlers made by an earlier one). */
  geometryNow(): LogGeometry;
}

/**
 * The scroll state of a log of `count` rows, any number of them (see log-scroll.ts): it listens to
 * the element's scrolling, maps it onto the rows, follows the end while there and renders again
 * when `version` (the lines) moves.
 */
export function useLogScroll(count: number, follow: boolean, version: number): LogScroll {
  const parent = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const atEnd = useRef(follow);
  const [box, setBox] = useState({ viewport: 0, before: 0 });
  const geometry: LogGeometry = { count, rowHeight: LOG_ROW_HEIGHT, viewport: box.viewport, before: box.before, after: LOG_PAD_BOTTOM };
  const [position, setPosition] = useState<LogPosition>({ scrollTop: 0, offset: 0 });
  // What the scroll handler and the imperative moves read: the latest, not a render's.
  const latest = useRef({ geometry, position });
  useLayoutEffect(() => {
    latest.current.geometry = geometry;
  });

  const commit = useCallback((next: LogPosition, sync: boolean) => {
    const prev = latest.current.position;
    if (prev.scrollTop === next.scrollTop && prev.offset === next.offset) return;
    latest.current.position = next;
    // Rows move with the new position in the same frame the browser paints the scroll.
    if (sync) flushSync(() => setPosition(next));
    else setPosition(next);
  }, []);

  // The view's height and what sits above the rows; read after every render (cheap, and a
  // message or a horizontal scrollbar may have come or gone).
  const measure = useCallback(() => {
    const el = parent.current;
    if (!el) return;
    const viewport = el.clientHeight;
    const before = list.current?.offsetTop ?? 0;
    setBox((b) => (b.viewport === viewport && b.before === before ? b : { viewport, before }));
  }, []);
  useLayoutEffect(measure);
  useEffect(() => {
    const el = parent.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [measure]);

  // Following: after rows were added, their text arrived or the view changed size, the end is
  // shown again before the browser paints.
  useLayoutEffect(() => {
    const el = parent.current;
    if (!el || !atEnd.current || !count) return;
    el.scrollTop = el.scrollHeight;
    commit(endPosition(el, latest.current.geometry), false);
  }, [count, version, box, commit]);

  useEffect(() => {
    const el = parent.current;
    if (!el) return;
    let resync: ReturnType<typeof setTimeout> | undefined;
    // After small moves (taken one to one) the thumb no longer matches the rows shown: once
    // scrolling pauses it is put back, so the next drag starts from where the reader is.
    const putThumbBack = () => {
      const { geometry: g, position: p } = latest.current;
      if (!isScaled(g)) return;
      const want = scrollTopAt(p.offset, g);
      if (Math.abs(want - el.scrollTop) < 1) return;
      el.scrollTop = want;
      commit({ scrollTop: el.scrollTop, offset: p.offset }, true);
    };
    const onScroll = () => {
      const { geometry: g, position: prev } = latest.current;
      const scrollTop = el.scrollTop;
      // Our own move (already committed), or a sideways scroll.
      if (scrollTop === prev.scrollTop) return;
      // The real end counts as the end even if a measure is a pixel off.
      const offset = scrollTop + el.clientHeight >= el.scrollHeight - 1 && isScaled(g) ? maxOffset(g) : nextOffset(prev, scrollTop, g);
      // Following stops only when the reader moves up, not when lines arrive faster than the
      // view scrolls down to them; it starts again at the end.
      if (maxOffset(g) - offset < g.rowHeight * 2) atEnd.current = true;
      else if (offset < prev.offset) atEnd.current = false;
      commit({ scrollTop, offset }, true);
      clearTimeout(resync);
      resync = setTimeout(putThumbBack, RESYNC_MS);
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      el.removeEventListener('scroll', onScroll);
      clearTimeout(resync);
    };
  }, [commit]);

  const moveTo = useCallback(
    (offset: number) => {
      const el = parent.current;
      if (!el) return;
      const g = latest.current.geometry;
      atEnd.current = false;
      el.scrollTop = scrollTopAt(offset, g);
      commit({ scrollTop: el.scrollTop, offset: isScaled(g) ? offset : el.scrollTop }, false);
    },
    [commit],
  );

  const toEnd = useCallback(() => {
    const el = parent.current;
    if (!el) return;
    atEnd.current = true;
    el.scrollTop = el.scrollHeight;
    commit(endPosition(el, latest.current.geometry), false);
  }, [commit]);

  // The position as this render's geometry allows (the view may have grown since it was set).
  const shown = isScaled(geometry) ? { scrollTop: position.scrollTop, offset: Math.min(position.offset, maxOffset(geometry)) } : position;
  const geometryNow = useCallback(() => latest.current.geometry, []);
  return { parent, list, geometry, position: shown, atEnd, moveTo, toEnd, geometryNow };
}

/** The position of an element just scrolled to its end. */
function endPosition(el: HTMLElement, g: LogGeometry): LogPosition {
  return { scrollTop: el.scrollTop, offset: isScaled(g) ? maxOffset(g) : el.scrollTop };
}
