import WarningIcon from '@mui/icons-material/WarningAmber';
import CleanIcon from '@mui/icons-material/CheckCircleOutlineOutlined';
import UnknownIcon from '@mui/icons-material/HelpOutlineOutlined';
import { Chip, Tooltip } from '@mui/material';
import { planCounts, type Drift } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/format';

/**
 * What the last drift check found: "Drifted" (warning), "No drift" or "Not checked"; the tooltip
 * says when, and the counts of a drift. Focusable, so the tooltip opens from the keyboard too.
 */
export function DriftBadge({ drift }: { drift: Drift | null | undefined }) {
  const { t } = useTranslation();
  const status = drift?.status ?? 'unknown';
  const label = t(`terraformPlans.drift.${status}`);
  const details = [
    drift?.checked_at
      ? t('terraformPlans.drift.checkedAt', { at: formatDateTime(drift.checked_at) })
      : t('terraformPlans.drift.never'),
    drift?.summary && status === 'drifted'
      ? t('terraformPlans.drift.counts', {
          create: drift.summary.create,
          update: drift.summary.update,
          replace: drift.summary.replace,
          destroy: drift.summary.destroy,
        })
      : null,
    drift?.refresh_only ? t('terraformPlans.drift.refreshOnly') : null,
  ]
    .filter(Boolean)
    .join(' · ');
  const icon =
    status === 'drifted' ? (
      <WarningIcon color="warning" />
    ) : status === 'clean' ? (
      <CleanIcon color="success" />
    ) : (
      <UnknownIcon />
    );
  return (
    <Tooltip title={details}>
      <Chip
        size="small"
        variant="outlined"
        icon={icon}
        label={label}
        tabIndex={0}
        aria-label={`${label}: ${details}`}
        data-testid="drift-badge"
        data-status={status}
        data-counts={drift?.summary ? planCounts(drift.summary) : undefined}
        sx={status === 'drifted' ? { borderColor: 'warning.main', fontWeight: 600 } : undefined}
      />
    </Tooltip>
  );
}
