import { Box } from '@mui/material';
import { LOG_ROW_HEIGHT } from '@gantry/contracts';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { AnsiLine } from '../../../components/tasks/ansi-line';

/** The whole log, virtualized (rows of ~22 px); it follows new lines while scrolled to the end. */
export function LogView({ lines, height }: { lines: string[]; height: number | string }) {
  const parent = useRef<HTMLDivElement>(null);
  const atEnd = useRef(true);
  const v = useVirtualizer({ count: lines.length, getScrollElement: () => parent.current, estimateSize: () => LOG_ROW_HEIGHT, overscan: 30 });
  useEffect(() => {
    if (atEnd.current && lines.length) v.scrollToIndex(lines.length - 1, { align: 'end' });
  }, [lines.length, v]);
  return (
    <Box
      ref={parent}
      data-testid="task-log"
      onScroll={(e) => {
        const el = e.currentTarget;
        atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < LOG_ROW_HEIGHT * 2;
      }}
      sx={{ height, overflow: 'auto', bgcolor: '#0d1117', color: '#d0d7de', fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', fontSize: 13, borderRadius: 1, p: 1 }}
    >
      <Box sx={{ height: v.getTotalSize(), position: 'relative', minWidth: 'max-content' }}>
        {v.getVirtualItems().map((row) => (
          <Box key={row.key} data-testid="log-line" sx={{ position: 'absolute', top: 0, left: 0, height: LOG_ROW_HEIGHT, lineHeight: `${LOG_ROW_HEIGHT}px`, transform: `translateY(${row.start}px)` }}>
            <AnsiLine text={lines[row.index]!} />
          </Box>
        ))}
      </Box>
    </Box>
  );
}
