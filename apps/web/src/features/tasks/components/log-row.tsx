import { memo } from 'react';
import { parseAnsi } from '../../../components/tasks/parse-ansi';
import { formatDateTime, formatTime } from '../../../lib/format';
import type { RowState } from './log-store';

interface LogRowProps {
  seq: number;
  state: RowState;
  text: string | undefined;
  time: string | undefined;
  /** Pixels from the top of the list. */
  top: number;
  showTime: boolean;
  highlighted: boolean;
}

/**
 * One row of the log: its number, optionally its time, and the line (colours kept, text only).
 * Styles come from classes set once on the list (see LogView); only the position is inline, so
 * scrolling through many rows adds no style rules.
 */
export const LogRow = memo(function LogRow({ seq, state, text, time, top, showTime, highlighted }: LogRowProps) {
  return (
    <div
      className={highlighted ? 'log-row log-row-hit' : 'log-row'}
      data-testid="log-line"
      data-seq={seq}
      data-state={state}
      title={time ? formatDateTime(time) : undefined}
      style={{ transform: `translateY(${top}px)` }}
    >
      <span className="log-gutter" aria-hidden="true">
        {seq}
      </span>
      {showTime ? <span className="log-time">{time ? formatTime(time) : ''}</span> : null}
      {state === 'line' ? (
        <span className="log-text">
          {parseAnsi(text ?? '').map((s, i) => (
            <span key={i} style={s.style}>
              {s.text}
            </span>
          ))}
        </span>
      ) : null}
      {state === 'pending' ? <span className="log-pending" style={{ width: `${12 + ((seq * 37) % 40)}ch` }} /> : null}
    </div>
  );
});
