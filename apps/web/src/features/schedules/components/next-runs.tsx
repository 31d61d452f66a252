import { Box, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { nextRunsQuery } from '../api/schedules-api';

/** `value`, once it stopped changing for `ms` (typing an expression asks the server once, not per key). */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(id);
  }, [value, ms]);
  return settled;
}

/**
 * The next times an expression fires, as the server's scheduler computes them: in UTC (the
 * cron's own clock, 24-hour like the builder) and in the browser's time zone, in the user's language.
 */
export function NextRuns({ projectId, cron }: { projectId: number; cron: string }) {
  const { t, i18n } = useTranslation();
  const settled = useSettled(cron.trim(), 300);
  const query = useQuery({ ...nextRunsQuery(projectId, settled), enabled: settled !== '' });
  const [utc, local] = useMemo(() => {
    const day = { weekday: 'short', month: 'short', day: 'numeric' } as const;
    return [
      new Intl.DateTimeFormat(i18n.language, { ...day, year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC', timeZoneName: 'short' }),
      new Intl.DateTimeFormat(i18n.language, { ...day, hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }),
    ];
  }, [i18n.language]);
  const runs = query.data?.runs;
  let body;
  if (settled === '' || query.isError) body = <Typography variant="body2" color="text.secondary">{t('schedules.nextRunsInvalid')}</Typography>;
  else if (!runs) body = <Typography variant="body2" color="text.secondary">{t('app.loading')}</Typography>;
  else if (!runs.length) body = <Typography variant="body2" color="text.secondary">{t('schedules.nextRunsNone')}</Typography>;
  else
    body = (
      <Box component="ol" aria-labelledby="next-runs-heading" sx={{ m: 0, pl: 2.5 }}>
        {runs.map((run) => (
          <Box component="li" key={run} sx={{ py: 0.25 }}>
            <Typography variant="body2" sx={{ fontVariantNumeric: 'tabular-nums' }}>
              {utc.format(new Date(run))}
            </Typography>
            <Typography variant="body2" color="text.secondary">
              {t('schedules.nextRunLocal', { time: local.format(new Date(run)) })}
            </Typography>
          </Box>
        ))}
      </Box>
    );
  return (
    <Box data-testid="next-runs" aria-live="polite" aria-busy={query.isFetching}>
      <Typography variant="subtitle2" component="h3" id="next-runs-heading">
        {t('schedules.nextRuns')}
      </Typography>
      {body}
    </Box>
  );
}
