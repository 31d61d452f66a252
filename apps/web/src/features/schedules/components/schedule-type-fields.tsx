import { Checkbox, FormControlLabel, MenuItem, TextField } from '@mui/material';
import type { ScheduleType } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { projectQueries } from '../../../lib/project-queries';

/** Whether the chosen template runs Terraform/OpenTofu (only those have drift checks). */
export function useIsTerraformTemplate(projectId: number, templateId: number | ''): boolean {
  const templates = useQuery(projectQueries.templates(projectId)).data ?? [];
  const app = templates.find((x) => x.id === templateId)?.app;
  return app === 'terraform' || app === 'tofu';
}

/** A Terraform/OpenTofu template's schedule: run the template, or a drift check (plan only), optionally -refresh-only. */
export function ScheduleTypeFields({
  type,
  refreshOnly,
  error,
  onType,
  onRefreshOnly,
}: {
  type: ScheduleType;
  refreshOnly: boolean;
  error?: string;
  onType(t: ScheduleType): void;
  onRefreshOnly(v: boolean): void;
}) {
  const { t } = useTranslation();
  return (
    <>
      <TextField
        select
        label={t('terraformPlans.scheduleType')}
        value={type}
        onChange={(e) => onType(e.target.value as ScheduleType)}
        error={!!error}
        helperText={error ?? (type === 'drift_check' ? t('terraformPlans.driftCheckHelp') : ' ')}
      >
        <MenuItem value="">{t('terraformPlans.scheduleTypes.run')}</MenuItem>
        <MenuItem value="drift_check">{t('terraformPlans.scheduleTypes.drift_check')}</MenuItem>
      </TextField>
      {type === 'drift_check' ? (
        <FormControlLabel
          control={<Checkbox checked={refreshOnly} onChange={(e) => onRefreshOnly(e.target.checked)} />}
          label={t('terraformPlans.refreshOnly')}
        />
      ) : null}
    </>
  );
}
