import AddIcon from '@mui/icons-material/AddCircleOutlineOutlined';
import RemoveIcon from '@mui/icons-material/RemoveCircleOutlineOutlined';
import SwapIcon from '@mui/icons-material/SwapHorizontalCircleOutlined';
import UpdateIcon from '@mui/icons-material/ChangeCircleOutlined';
import { Chip, Stack } from '@mui/material';
import { PLAN_ACTIONS, type PlanAction, type PlanSummary } from '@gantry/contracts';
import type { ReactElement } from 'react';
import { useTranslation } from 'react-i18next';

/** Icon colour per action: creating is green, changing blue, replacing orange, destroying red (the text keeps the theme's contrast). */
export const ACTION_COLORS: Record<PlanAction, 'success' | 'info' | 'warning' | 'error'> = {
  create: 'success',
  update: 'info',
  replace: 'warning',
  destroy: 'error',
};

export function ActionIcon({ action }: { action: PlanAction }): ReactElement {
  const color = ACTION_COLORS[action];
  if (action === 'create') return <AddIcon color={color} fontSize="small" />;
  if (action === 'update') return <UpdateIcon color={color} fontSize="small" />;
  if (action === 'replace') return <SwapIcon color={color} fontSize="small" />;
  return <RemoveIcon color={color} fontSize="small" />;
}

/** The four counts of a plan as labelled chips ("2 to add"...). */
export function PlanCounts({ summary }: { summary: Pick<PlanSummary, PlanAction> }) {
  const { t } = useTranslation();
  return (
    <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }} data-testid="plan-counts">
      {PLAN_ACTIONS.map((a) => (
        <Chip
          key={a}
          size="small"
          variant={summary[a] ? 'filled' : 'outlined'}
          icon={<ActionIcon action={a} />}
          label={t(`terraformPlans.count.${a}`, { count: summary[a] })}
          sx={summary[a] ? { fontWeight: 600 } : undefined}
        />
      ))}
    </Stack>
  );
}
