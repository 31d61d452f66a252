import { MenuItem, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { rowValid, type VarRow } from './vars-rows';

/** The value of one table row, as its type allows: free text, a number, true/false, or nothing for null. */
export function VarValueField({ row, onChange }: { row: VarRow; onChange(value: string): void }) {
  const { t } = useTranslation();
  const label = t('environments.varValue');
  const sx = { flex: 2 };
  if (row.type === 'boolean') {
    return (
      <TextField size="small" select label={label} value={row.value} onChange={(e) => onChange(e.target.value)} sx={sx}>
        <MenuItem value="true">{t('environments.varTrue')}</MenuItem>
        <MenuItem value="false">{t('environments.varFalse')}</MenuItem>
      </TextField>
    );
  }
  if (row.type === 'null') {
    return <TextField size="small" label={label} value="" disabled placeholder={t('environments.varTypes.null')} slotProps={{ inputLabel: { shrink: true } }} sx={sx} />;
  }
  const invalid = !rowValid(row);
  return (
    <TextField
      size="small"
      label={label}
      value={row.value}
      onChange={(e) => onChange(e.target.value)}
      error={invalid}
      helperText={invalid ? t('environments.varNotNumber') : undefined}
      slotProps={{ htmlInput: row.type === 'number' ? { inputMode: 'decimal' } : undefined }}
      sx={sx}
    />
  );
}
