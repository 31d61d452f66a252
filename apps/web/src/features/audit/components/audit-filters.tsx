import { Box, Button, MenuItem, TextField } from '@mui/material';
import { AUDIT_ACTIONS } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';
import { EMPTY_AUDIT_FILTERS, type AuditFilters } from '../api/audit-api';

/** The object types entries are recorded for, as the filter offers them. */
export const AUDIT_OBJECT_TYPES = [
  'user',
  'totp',
  'passkey',
  'token',
  'team_member',
  'project',
  'project_cache',
  'key',
  'repository',
  'inventory',
  'terraform_state',
  'terraform_backend',
  'terraform_alias',
  'environment',
  'template',
  'workflow',
  'schedule',
  'view',
  'integration',
  'integration_matcher',
  'integration_value',
  'integration_alias',
  'runner',
  'runner_cache',
  'app',
  'setting',
  'identity_mapping',
  'task',
  'address',
  'audit',
  'audit_export',
] as const;

/** Actor, action, object type and a date range; every change applies at once. */
export function AuditFiltersBar({ value, onChange }: { value: AuditFilters; onChange(next: AuditFilters): void }) {
  const { t } = useTranslation();
  const set = (k: keyof AuditFilters) => (e: { target: { value: string } }) =>
    onChange({ ...value, [k]: e.target.value });
  const dirty = Object.values(value).some((v) => v !== '');
  return (
    <Box
      component="form"
      role="search"
      aria-label={t('audit.filters')}
      onSubmit={(e) => e.preventDefault()}
      sx={{ display: 'flex', flexWrap: 'wrap', gap: 1.5, mb: 2 }}
    >
      <TextField
        size="small"
        label={t('audit.actor')}
        value={value.actor}
        onChange={set('actor')}
        sx={{ minWidth: 160, flex: '1 1 160px' }}
      />
      <TextField
        select
        size="small"
        label={t('audit.action')}
        value={value.action}
        onChange={set('action')}
        sx={{ minWidth: 160, flex: '1 1 160px' }}
      >
        <MenuItem value="">{t('audit.any')}</MenuItem>
        {AUDIT_ACTIONS.map((a) => (
          <MenuItem key={a} value={a}>
            {t(`audit.actions.${a}`)}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        select
        size="small"
        label={t('audit.objectType')}
        value={value.object_type}
        onChange={set('object_type')}
        sx={{ minWidth: 160, flex: '1 1 160px' }}
      >
        <MenuItem value="">{t('audit.any')}</MenuItem>
        {AUDIT_OBJECT_TYPES.map((o) => (
          <MenuItem key={o} value={o}>
            {t(`audit.objectTypes.${o}`)}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        size="small"
        type="date"
        label={t('audit.from')}
        value={value.from}
        onChange={set('from')}
        slotProps={{ inputLabel: { shrink: true } }}
        sx={{ flex: '1 1 150px' }}
      />
      <TextField
        size="small"
        type="date"
        label={t('audit.to')}
        value={value.to}
        onChange={set('to')}
        slotProps={{ inputLabel: { shrink: true } }}
        sx={{ flex: '1 1 150px' }}
      />
      <Button onClick={() => onChange(EMPTY_AUDIT_FILTERS)} disabled={!dirty}>
        {t('audit.clear')}
      </Button>
    </Box>
  );
}
