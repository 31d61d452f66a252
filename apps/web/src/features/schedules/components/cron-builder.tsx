import { MenuItem, Stack, TextField } from '@mui/material';
import { buildCron, type CronBuild, type CronTiming } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';

const TIMINGS: CronTiming[] = ['hourly', 'daily', 'weekly', 'monthly', 'yearly'];
const range = (from: number, to: number, step = 1) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_x, i) => from + i * step);

/** Builds a cron expression from choices (minutes in steps of 5; all times UTC). */
export function CronBuilder({ value, onChange }: { value: CronBuild; onChange(b: CronBuild, cron: string): void }) {
  const { t } = useTranslation();
  const set = (patch: Partial<CronBuild>) => {
    const next = { ...value, ...patch };
    onChange(next, buildCron(next));
  };
  const select = (key: keyof CronBuild, label: string, options: Array<{ value: number | string; label: string }>) => (
    <TextField select size="small" label={label} value={value[key]} onChange={(e) => set({ [key]: key === 'timing' ? e.target.value : Number(e.target.value) } as Partial<CronBuild>)} sx={{ minWidth: 110 }}>
      {options.map((o) => (
        <MenuItem key={o.value} value={o.value}>
          {o.label}
        </MenuItem>
      ))}
    </TextField>
  );
  const tm = value.timing;
  return (
    <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }} data-testid="cron-builder">
      {select('timing', t('schedules.timing'), TIMINGS.map((x) => ({ value: x, label: t(`schedules.timings.${x}`) })))}
      {tm === 'yearly' ? select('month', t('schedules.month'), range(1, 12).map((m) => ({ value: m, label: String(m) }))) : null}
      {tm === 'yearly' || tm === 'monthly' ? select('day', t('schedules.day'), range(1, 31).map((d) => ({ value: d, label: String(d) }))) : null}
      {tm === 'weekly' ? select('weekday', t('schedules.weekday'), range(0, 6).map((d) => ({ value: d, label: t(`schedules.weekdays.${d}`) }))) : null}
      {tm !== 'hourly' ? select('hour', t('schedules.hourUtc'), range(0, 23).map((h) => ({ value: h, label: String(h).padStart(2, '0') }))) : null}
      {select('minute', t('schedules.minute'), range(0, 55, 5).map((m) => ({ value: m, label: String(m).padStart(2, '0') })))}
    </Stack>
  );
}
