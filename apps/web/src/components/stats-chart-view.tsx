import { MenuItem, Paper, Stack, TextField, ToggleButton, ToggleButtonGroup, useTheme } from '@mui/material';
import { STATS_RANGES, type ProjectUser, type StatsEntry } from '@gantry/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { api } from '../lib/api-client';
import { formatDay, formatNumber } from '../lib/format';

type Range = (typeof STATS_RANGES)[number]['key'];

/** Every day of the range, so days without tasks show as zero. */
function fillDays(entries: StatsEntry[], days: number) {
  const byDate = new Map(entries.map((e) => [e.date, e.count_by_status]));
  return Array.from({ length: days }, (_x, i) => {
    const date = new Date(Date.now() - (days - 1 - i) * 86400_000).toISOString().slice(0, 10);
    return { date, ...(byDate.get(date) ?? { success: 0, error: 0, stopped: 0 }) };
  });
}

/** The chart itself (recharts), loaded by StatsChart on first use. */
export function StatsChartView({ baseUrl, users }: { baseUrl: string; users: ProjectUser[] }) {
  const { t } = useTranslation();
  const theme = useTheme();
  const [range, setRange] = useState<Range>('week');
  const [userId, setUserId] = useState<number | ''>('');
  const days = STATS_RANGES.find((r) => r.key === range)!.days;
  const start = new Date(Date.now() - (days - 1) * 86400_000).toISOString().slice(0, 10);
  const url = `${baseUrl}/stats?start=${start}${userId ? `&user_id=${userId}` : ''}`;
  // Another range or user keeps the last chart on screen until its numbers arrive.
  const data = useQuery({ queryKey: ['stats', url], queryFn: () => api.get<StatsEntry[]>(url), placeholderData: keepPreviousData }).data ?? [];
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      {/* On a phone the user filter wraps below the ranges, full width. */}
      <Stack direction="row" spacing={2} useFlexGap sx={{ mb: 2, alignItems: 'center', flexWrap: 'wrap' }}>
        <ToggleButtonGroup size="small" exclusive value={range} onChange={(_e, v: Range | null) => v && setRange(v)}>
          {STATS_RANGES.map((r) => (
            <ToggleButton key={r.key} value={r.key}>
              {t(`stats.${r.key}`)}
            </ToggleButton>
          ))}
        </ToggleButtonGroup>
        <TextField
          select
          size="small"
          label={t('stats.user')}
          value={userId}
          onChange={(e) => setUserId(e.target.value === '' ? '' : Number(e.target.value))}
          sx={{ minWidth: 200, flex: { xs: '1 1 100%', sm: '0 0 auto' } }}
          // "All users" is the empty value: show it instead of a blank field.
          slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
        >
          <MenuItem value="">{t('stats.allUsers')}</MenuItem>
          {users.map((u) => (
            <MenuItem key={u.id} value={u.id}>
              {u.name}
            </MenuItem>
          ))}
        </TextField>
      </Stack>
      <div
        data-testid="stats-chart"
        data-total={data.reduce(
          (n, d) => n + d.count_by_status.success + d.count_by_status.error + d.count_by_status.stopped,
          0,
        )}
      >
        <ResponsiveContainer width="100%" height={300}>
          <BarChart data={fillDays(data, days)}>
            <CartesianGrid strokeDasharray="3 3" stroke={theme.palette.divider} />
            <XAxis dataKey="date" tickFormatter={(d) => formatDay(String(d))} tick={{ fontSize: 11, fill: theme.palette.text.secondary }} />
            <YAxis allowDecimals={false} tickFormatter={(n) => formatNumber(Number(n))} tick={{ fontSize: 11, fill: theme.palette.text.secondary }} />
            <Tooltip
              labelFormatter={(d) => formatDay(String(d))}
              contentStyle={{
                background: theme.palette.background.paper,
                border: `1px solid ${theme.palette.divider}`,
              }}
            />
            {/* The coloured squares tell the outcomes apart; the words keep the text colour, readable on any theme. */}
            <Legend formatter={(value: string) => <span style={{ color: theme.palette.text.primary }}>{value}</span>} />
            <Bar dataKey="success" name={t('taskStatus.success')} stackId="s" isAnimationActive={false} fill={theme.palette.success.main} />
            <Bar dataKey="error" name={t('taskStatus.error')} stackId="s" isAnimationActive={false} fill={theme.palette.error.main} />
            <Bar dataKey="stopped" name={t('taskStatus.stopped')} stackId="s" isAnimationActive={false} fill={theme.palette.grey[500]} />
          </BarChart>
        </ResponsiveContainer>
      </div>
    </Paper>
  );
}
