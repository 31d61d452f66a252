import { Alert, Box, CircularProgress, Stack, Typography, type SxProps, type Theme } from '@mui/material';
import { LOG_ROW_HEIGHT } from '@gantry/contracts';
import { useEffect, useImperativeHandle, useState, type Ref } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/error-text';
import type { TaskLogLoader } from './log-loader';
import { LogRow } from './log-row';
import { listHeight, offsetOfRow, rowTop, rowsInView } from './log-scroll';
import { useLogVersion } from './use-task-log';
import { LOG_PAD_BOTTOM, useLogScroll } from './use-log-scroll';

/** What the dialog's toolbar and search do to the view. */
export interface LogViewHandle {
  /** Scrolls so line `seq` is in the middle, reads its page and marks it. */
  showSeq(seq: number): void;
  /**
   * Shows line `seq` near the top, reads its page and marks it for a moment; a number past
   * either end goes to that end. Answers the line shown (null: the log has no lines yet).
   */
  goToLine(seq: number): number | null;
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
/** Rows kept above a line jumped to, so it reads in context. */
const GO_TO_MARGIN = 2;
/** How long a line jumped to stays marked. */
const FLASH_MS = 2500;

/**
 * The log as a virtual list of lastSeq rows (22 px each), any number of them (see
 * log-scroll.ts): rows not read yet show a dim bar and are read when they stay on screen. While
 * scrolled to the end it follows new lines.
 */
export function LogView({ loader, follow, showTime, sx, ref }: LogViewProps) {
  const { t } = useTranslation();
  const version = useLogVersion(loader);
  const store = loader?.store;
  const count = store?.lastSeq ?? 0;
  const { parent, list, geometry, position, moveTo, toEnd, geometryNow } = useLogScroll(count, follow, version);
  const [hit, setHit] = useState<number | null>(null);
  // An object, so going to the same line again marks it for a full moment again.
  const [flash, setFlash] = useState<{ seq: number } | null>(null);
  const [first, last] = rowsInView(position.offset, geometry, OVERSCAN);
  const firstSeq = first + 1;
  const lastSeq = last + 1;

  // Rows on screen that are not read yet are read once scrolling pauses (the loader debounces).
  useEffect(() => {
    if (loader && lastSeq >= firstSeq) loader.showing(firstSeq, lastSeq);
  }, [loader, firstSeq, lastSeq, version]);

  useEffect(() => {
    if (flash === null) return;
    const timer = setTimeout(() => setFlash(null), FLASH_MS);
    return () => clearTimeout(timer);
  }, [flash]);

  useImperativeHandle(
    ref,
    () => ({
      showSeq(seq) {
        setHit(seq);
        moveTo(offsetOfRow(seq - 1, geometryNow(), 'center'));
        void loader?.loadAround(seq);
      },
      goToLine(seq) {
        const lines = geometryNow().count;
        if (!lines) return null;
        const line = Math.min(Math.max(1, Math.floor(seq)), lines);
        setFlash({ seq: line });
        moveTo(offsetOfRow(line - 1, geometryNow(), 'start', GO_TO_MARGIN));
        void loader?.loadAround(line);
        return line;
      },
      toStart() {
        moveTo(0);
      },
      toEnd,
    }),
    [loader, moveTo, toEnd, geometryNow],
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
      sx={[
        {
          position: 'relative',
          overflow: 'auto',
          bgcolor: '#0d1117',
          color: '#d0d7de',
          fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace',
          fontSize: 13,
          borderRadius: 1,
          pt: 1,
          // Rows are placed by script; the browser must not move the scroll position to keep one in view.
          overflowAnchor: 'none',
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
          // The dim number and time would fall under 4.5:1 on the marked row's background.
          '& .log-row-hit .log-gutter, & .log-row-hit .log-time': { color: '#b1bac4' },
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
      {/* Rows placed past its bottom while the list is capped are cut, not scrollable to. */}
      <div ref={list} style={{ height: listHeight(geometry), position: 'relative', overflowY: 'clip' }}>
        {store
          ? Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => {
              const seq = first + i + 1;
              return (
                <LogRow
                  key={seq}
                  seq={seq}
                  state={store.state(seq)}
                  text={store.line(seq)}
                  time={store.time(seq)}
                  top={rowTop(seq - 1, position, geometry)}
                  showTime={showTime}
                  highlighted={seq === hit || seq === flash?.seq}
                />
              );
            })
          : null}
      </div>
      <div style={{ height: LOG_PAD_BOTTOM }} />
    </Box>
  );
}
