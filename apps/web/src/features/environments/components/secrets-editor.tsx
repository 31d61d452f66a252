import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import { Button, IconButton, MenuItem, Stack, TextField, Typography } from '@mui/material';
import type { EnvironmentSecret, SecretChange } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';

export interface SecretRow {
  id?: number;
  name: string;
  type: 'var' | 'env';
  /** A new value; empty keeps the stored one. */
  secret: string;
  removed?: boolean;
  changed?: boolean;
}

export const secretRows = (list: EnvironmentSecret[]): SecretRow[] => list.map((s) => ({ id: s.id, name: s.name, type: s.type, secret: '' }));

/**
 * What to send on save (spec 4): new entries are created, edited ones updated, removed existing
 * ones deleted; removed new ones are simply dropped.
 */
export function secretChanges(rows: SecretRow[]): SecretChange[] {
  return rows.flatMap((r): SecretChange[] => {
    if (r.id === undefined) return r.removed ? [] : [{ name: r.name, secret: r.secret, type: r.type, operation: 'create' }];
    if (r.removed) return [{ id: r.id, name: r.name, secret: '', type: r.type, operation: 'delete' }];
    return r.changed ? [{ id: r.id, name: r.name, secret: r.secret, type: r.type, operation: 'update' }] : [];
  });
}

/** Secrets are write-only: names and types show, values can only be replaced. */
export function SecretsEditor({ rows, onChange }: { rows: SecretRow[]; onChange(rows: SecretRow[]): void }) {
  const { t } = useTranslation();
  const set = (i: number, patch: Partial<SecretRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch, changed: true } : r)));
  return (
    <Stack spacing={1}>
      <Typography variant="subtitle2">{t('environments.secrets')}</Typography>
      {rows.map((r, i) =>
        r.removed ? null : (
          <Stack key={i} direction="row" spacing={1}>
            <TextField size="small" label={t('environments.secretName')} value={r.name} onChange={(e) => set(i, { name: e.target.value })} sx={{ flex: 1 }} />
            <TextField size="small" select label={t('environments.secretType')} value={r.type} onChange={(e) => set(i, { type: e.target.value as 'var' | 'env' })} sx={{ width: 150 }}>
              <MenuItem value="var">{t('environments.secretVar')}</MenuItem>
              <MenuItem value="env">{t('environments.secretEnv')}</MenuItem>
            </TextField>
            <TextField
              size="small"
              type="password"
              label={t('environments.secretValue')}
              placeholder={r.id !== undefined ? t('environments.secretKept') : ''}
              value={r.secret}
              onChange={(e) => set(i, { secret: e.target.value })}
              sx={{ flex: 2 }}
              slotProps={{ htmlInput: { autoComplete: 'new-password' } }}
            />
            <IconButton aria-label={t('environments.removeSecret')} onClick={() => onChange(rows.map((x, j) => (j === i ? { ...x, removed: true } : x)))}>
              <DeleteIcon fontSize="small" />
            </IconButton>
          </Stack>
        ),
      )}
      <Button size="small" startIcon={<AddIcon />} onClick={() => onChange([...rows, { name: '', type: 'env', secret: '' }])} sx={{ alignSelf: 'flex-start' }}>
        {t('environments.addSecret')}
      </Button>
    </Stack>
  );
}
