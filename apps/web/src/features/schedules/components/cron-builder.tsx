import { Alert, MenuItem, Stack, TextField } from '@mui/material';
import { buildCron, parseCron, type CronBuild, type CronTiming } from '@gantry/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

const TIMINGS: CronTiming[] = ['hourly', 'daily', 'weekly', 'monthly', 'yearly'];
const DEFAULT_BUILD: CronBuild = { timing: 'daily', minute: 0, hour: 0, day: 1, month: 1, weekday: 1 };
const range = (from: number, to: number, step = 1) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_x, i) => from + i * step);

/**
 * The cron expression shown as choices (minutes in steps of 5; all times UTC). The expression is
 * the one state: the choices are decoded from it, and each choice rewrites it at once. An
 * expression the choices cannot show exactly is left as it is and the builder says so; picking a
 * timing then replaces it.
 */
export function CronBuilder({ cron, onChange }: { cron: string; onChange(cron: string): void }) {
  const { t } = useTranslation();
  // Choices the expression does not fix (a daily one's weekday), kept while switching timings.
  const [memory, setMemory] = useState(DEFAULT_BUILD);
  const value = parseCron(cron, memory);
  const set = (patch: Partial<CronBuild>) => {
    const next = { ...(value ?? memory), ...patch };
    setMemory(next);
    onChange(buildCron(next));
  };
  const select = (key: keyof CronBuild, label: string, options: Array<{ value: number | string; label: string }>) => (
    <TextField select size="small" label={label} value={value ? value[key] : ''} onChange={(e) => set({ [key]: key === 'timing' ? e.target.value : Number(e.target.value) } as Partial<CronBuild>)} sx={{ minWidth: 110 }}>
      {options.map((o) => (
        <MenuItem key={o.value} value={o.value}>
          {o.label}
        </MenuItem>
      ))}
    </TextField>
  );
  const tm = value?.timing;
  return (
    <Stack spacing={1} data-testid="cron-builder">
      {value ? null : (
        <Alert severity="info" data-testid="cron-builder-cannot-show">
          {t('schedules.builderCannotShow')}
        </Alert>
      )}
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
        {select('timing', t('schedules.timing'), TIMINGS.map((x) => ({ value: x, label: t(`schedules.timings.${x}`) })))}
        {tm === 'yearly' ? select('month', t('schedules.month'), range(1, 12).map((m) => ({ value: m, label: String(m) }))) : null}
        {tm === 'yearly' || tm === 'monthly' ? select('day', t('schedules.day'), range(1, 31).map((d) => ({ value: d, label: String(d) }))) : null}
        {tm === 'weekly' ? select('weekday', t('schedules.weekday'), range(0, 6).map((d) => ({ value: d, label: t(`schedules.weekdays.${d}`) }))) : null}
        {tm && tm !== 'hourly' ? select('hour', t('schedules.hourUtc'), range(0, 23).map((h) => ({ value: h, label: String(h).padStart(2, '0') }))) : null}
        {tm ? select('minute', t('schedules.minute'), range(0, 55, 5).map((m) => ({ value: m, label: String(m).padStart(2, '0') }))) : null}
      </Stack>
    </Stack>
  );
}
