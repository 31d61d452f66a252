import WarningIcon from '@mui/icons-material/WarningAmberOutlined';
import { Box, Tooltip, Typography } from '@mui/material';
import { NODE_HEARTBEAT_MS } from '@gantry/contracts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../../../lib/format';

/** Two missed heartbeats: the node may be down, though it is not yet reaped. */
export const NODE_STALE_SECONDS = (2 * NODE_HEARTBEAT_MS) / 1000;

/** The current time, updated every `ms`. */
function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/** "3.2 s ago" (tenths under 10 s, where they tell a live node's pace), "42 s ago", "4 min ago", "2 h ago". */
function useAgeText(seconds: number): string {
  const { t } = useTranslation();
  if (seconds < 60) {
    const digits = seconds < 10 ? 1 : 0;
    const value = formatNumber(digits ? seconds : Math.floor(seconds), digits);
    return t('cluster.secondsAgo', { value });
  }
  if (seconds < 3600) return t('cluster.minutesAgo', { count: Math.floor(seconds / 60) });
  return t('cluster.hoursAgo', { count: Math.floor(seconds / 3600) });
}

/**
 * How long ago a node last wrote its heartbeat, ticking between refetches; in the warning colour,
 * with a tooltip, once the node has been silent for more than two heartbeats.
 */
export function HeartbeatAge({
  ageSeconds,
  receivedAt,
}: {
  /** The age the server measured (its own clock, so the browser's clock does not skew it). */
  ageSeconds: number;
  /** When that answer arrived (ms since the epoch): the time since is added to the age. */
  receivedAt: number;
}) {
  const { t } = useTranslation();
  const now = useNow(1000);
  // The clock ticks once a second, so just after a refetch `now` can trail `receivedAt`.
  const age = ageSeconds + Math.max(0, now - receivedAt) / 1000;
  const text = useAgeText(age);
  if (age <= NODE_STALE_SECONDS) return <>{text}</>;
  const warning = t('cluster.mayBeDown', { seconds: NODE_STALE_SECONDS });
  return (
    <Tooltip title={warning}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.5 }} data-testid="stale-heartbeat">
        <WarningIcon fontSize="small" color="warning" />
        <Typography
          variant="body2"
          component="span"
          // The darker (light mode) or lighter (dark mode) shade keeps the text readable on the paper.
          sx={(theme) => ({ fontWeight: 600, color: theme.palette.mode === 'dark' ? 'warning.light' : 'warning.dark' })}
        >
          {text}
        </Typography>
      </Box>
    </Tooltip>
  );
}
