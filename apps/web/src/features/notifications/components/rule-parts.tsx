import { Box, Chip } from '@mui/material';
import type { NotificationRule } from '@gantry/contracts';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';

/** A rule's events as chips; none: the destination is silenced for the template or schedule. */
export function EventChips({ rule }: { rule: Pick<NotificationRule, 'events'> }) {
  const { t } = useTranslation();
  if (!rule.events.length) return <Chip size="small" variant="outlined" label={t('notifications.silenced')} />;
  return (
    <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5 }}>
      {rule.events.map((e) => (
        <Chip key={e} size="small" label={t(`notifications.eventNames.${e}`)} />
      ))}
    </Box>
  );
}

/** A rule's filters and timings in words ("Only schedules", "Branch main", "After 30 minutes"...). */
export function ruleFilters(r: NotificationRule, t: TFunction): string[] {
  const out: string[] = [];
  if (r.only_schedules) out.push(t('notifications.onlySchedules'));
  if (r.branch) out.push(t('notifications.branchIs', { branch: r.branch }));
  if (r.exclude_task_runners) out.push(t('notifications.excludeTaskRunners'));
  if (r.events.includes('long_running') && r.long_running_minutes)
    out.push(t('notifications.afterMinutes', { minutes: r.long_running_minutes }));
  if (r.events.includes('digest') && r.digest_hour !== null)
    out.push(t('notifications.digestAt', { hour: String(r.digest_hour).padStart(2, '0') }));
  return out;
}
