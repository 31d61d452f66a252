import { Alert, Box, CircularProgress, Stack, Typography, type SxProps, type Theme } from '@mui/material';
import { LOG_ROW_HEIGHT } from '@gantry/contracts';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useImperativeHandle, useLayoutEffect, useRef, useState, type Ref } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/error-text';
import type { TaskLogLoader } from './log-loader';
import { LogRow } from './log-row';
import { useLogVersion } from './use-task-log';

/** What the dialog's toolbar and search do to the view. */
export interface LogViewHandle {
  /** Scrolls so line `seq` is in the middle, reads its page and marks it. */
  showSeq(seq: number): void;
  toStart(): void;
  /** Scrolls to the end and follows new lines again. */
  toEnd(): void;
}

interface LogViewProps {
  loader: TaskLogLoader | null;
  /** Start at the end and follow new lines (a running task); else start at line 1. */
  follow: boolean;
  showTime: boolean;
  sx?: SxProps<Theme>;
  ref?: Ref<LogViewHandle>;
}

const OVERSCAN = 30;

/**
 * The log as a virtual list of lastSeq rows (22 px each): rows not read yet show a dim bar and
 * are read when they stay on screen. While scrolled to the end it follows new lines.
 */
export function LogView({ loader, follow, showTime, sx, ref }: LogViewProps) {
  const { t } = useTranslation();
  const version = useLogVersion(loader);
  const store = loader?.store;
  const count = store?.lastSeq ?? 0;
  const parent = useRef<HTMLDivElement>(null);
  const atEnd = useRef(follow);
  const [hit, setHit] = useState<number | null>(null);
  const v = useVirtualizer({
    count,
    getScrollElement: () => parent.current,
    estimateSize: () => LOG_ROW_HEIGHT,
    overscan: OVERSCAN,
  });
  const items = v.getVirtualItems();
  const firstSeq = (items[0]?.index ?? 0) + 1;
  const lastSeq = (items[items.length - 1]?.index ?? -1) + 1;

  // Follows the end: after rows were added or their text arrived (a wide line brings a horizontal
  // scrollbar, which hides the last row), the list is scrolled down before the browser paints.
  const lastTop = useRef(0);
  useLayoutEffect(() => {
    const el = parent.current;
    if (el && atEnd.current && count) {
      el.scrollTop = el.scrollHeight;
      lastTop.current = el.scrollTop;
    }
  }, [count, version]);
  // And when the view itself grows or shrinks (the dialog's header changing as the task ends).
  useEffect(() => {
    const el = parent.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => {
      if (atEnd.current) el.scrollTop = el.scrollHeight;
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // Rows on screen that are not read yet are read once scrolling pauses (the loader debounces).
  useEffect(() => {
    if (loader && lastSeq >= firstSeq) loader.showing(firstSeq, lastSeq);
  }, [loader, firstSeq, lastSeq, version]);

  useImperativeHandle(
    ref,
    () => ({
      showSeq(seq) {
        atEnd.current = false;
        setHit(seq);
        v.scrollToIndex(seq - 1, { align: 'center' });
        void loader?.loadAround(seq);
      },
      toStart() {
        atEnd.current = false;
        v.scrollToIndex(0, { align: 'start' });
      },
      toEnd() {
        atEnd.current = true;
        if (parent.current) parent.current.scrollTop = parent.current.scrollHeight;
      },
    }),
    [v, loader],
  );

  const digits = String(Math.max(count, 1)).length;
  return (
    <Box
      ref={parent}
      data-testid="task-log"
      // A keyboard scrolls the log (both ways) once it has focus.
      tabIndex={0}
      role="region"
      aria-label={t('tasks.log.region')}
      onScroll={(e) => {
        // Following stops only when the reader moves up, not when lines arrive faster than the
        // view scrolls down to them; it starts again at the end.
        const el = e.currentTarget;
        const nearEnd = el.scrollHeight - el.scrollTop - el.clientHeight < LOG_ROW_HEIGHT * 2;
        if (nearEnd) atEnd.current = true;
        else if (el.scrollTop < lastTop.current) atEnd.current = false;
        lastTop.current = el.scrollTop;
      }}
      sx={[
        {
          position: 'relative',
          overflow: 'auto',
          bgcolor: '#0d1117',
          color: '#d0d7de',
          fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace',
          fontSize: 13,
          borderRadius: 1,
          py: 1,
          '& .log-row': {
            position: 'absolute',
            top: 0,
            left: 0,
            minWidth: '100%',
            height: LOG_ROW_HEIGHT,
            lineHeight: `${LOG_ROW_HEIGHT}px`,
            whiteSpace: 'pre',
            pr: 1,
            boxSizing: 'border-box',
          },
          '& .log-row-hit': { bgcolor: 'rgba(210, 153, 34, 0.28)' },
          '& .log-gutter': {
            display: 'inline-block',
            width: `${digits + 1}ch`,
            pr: 1.5,
            mr: 1,
            textAlign: 'right',
            // Dimmer than the text, still 5:1 on the log's background.
            color: '#7d8590',
            userSelect: 'none',
            boxSizing: 'content-box',
          },
          '& .log-time': { color: '#8b949e', mr: 1.5, userSelect: 'none' },
          '& .log-pending': { display: 'inline-block', height: 8, borderRadius: 4, bgcolor: 'rgba(255, 255, 255, 0.08)', verticalAlign: 'middle' },
        },
        ...(Array.isArray(sx) ? sx : [sx]),
      ]}
    >
      {loader?.error ? (
        <Alert severity="error" sx={{ m: 1 }}>
          {errorText(loader.error)}
        </Alert>
      ) : null}
      {!loader?.started ? (
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', p: 1 }}>
          <CircularProgress size={14} color="inherit" />
          <Typography variant="body2">{t('tasks.log.loading')}</Typography>
        </Stack>
      ) : null}
      {loader?.started && !loader.error && count === 0 ? (
        <Typography variant="body2" sx={{ p: 1, color: '#8b949e' }}>
          {t('tasks.log.empty')}
        </Typography>
      ) : null}
      <div style={{ height: v.getTotalSize(), position: 'relative' }}>
        {store
          ? items.map((row) => {
              const seq = row.index + 1;
              return (
                <LogRow
                  key={seq}
                  seq={seq}
                  state={store.state(seq)}
                  text={store.line(seq)}
                  time={store.time(seq)}
                  top={row.start}
                  showTime={showTime}
                  highlighted={seq === hit}
                />
              );
            })
          : null}
      </div>
    </Box>
  );
}
