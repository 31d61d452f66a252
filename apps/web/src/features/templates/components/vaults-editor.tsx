import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import { Button, IconButton, MenuItem, Stack, TextField, Typography } from '@mui/material';
import type { AccessKey, TemplateInput } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';

export type VaultDraft = NonNullable<TemplateInput['vaults']>[number];

interface VaultsEditorProps {
  vaults: VaultDraft[];
  keys: AccessKey[];
  /** The form's messages by path: `vaults.{i}.{field}`. */
  errors: Record<string, string>;
  onChange(v: VaultDraft[]): void;
}

/** Ansible vaults: a password from a login-with-password key, or a "-client" script in the repository. */
export function VaultsEditor({ vaults, keys, errors, onChange }: VaultsEditorProps) {
  const { t } = useTranslation();
  const set = (i: number, patch: Partial<VaultDraft>) => onChange(vaults.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  // A field shows a message only when it has one; the row aligns at the top, so no field moves.
  const field = (i: number, key: 'name' | 'type' | 'vault_key_id' | 'script') => ({ error: !!errors[`vaults.${i}.${key}`], helperText: errors[`vaults.${i}.${key}`] });
  return (
    <Stack spacing={1}>
      <Typography variant="subtitle2">{t('templates.vaults')}</Typography>
      {vaults.map((v, i) => (
        <Stack key={i} direction="row" spacing={1} role="group" aria-label={t('templates.vaultN', { n: i + 1 })} sx={{ alignItems: 'flex-start' }}>
          <TextField size="small" label={t('templates.vaultName')} placeholder={t('templates.vaultDefault')} value={v.name ?? ''} onChange={(e) => set(i, { name: e.target.value })} {...field(i, 'name')} />
          <TextField size="small" select label={t('templates.vaultType')} value={v.type} onChange={(e) => set(i, { type: e.target.value as VaultDraft['type'] })} sx={{ minWidth: 130 }} {...field(i, 'type')}>
            <MenuItem value="password">{t('templates.vaultPassword')}</MenuItem>
            <MenuItem value="script">{t('templates.vaultScript')}</MenuItem>
          </TextField>
          {v.type === 'password' ? (
            <TextField size="small" select required label={t('templates.vaultKey')} value={v.vault_key_id ?? ''} onChange={(e) => set(i, { vault_key_id: Number(e.target.value) })} sx={{ minWidth: 200 }} {...field(i, 'vault_key_id')}>
              {keys.filter((k) => k.type === 'login_password').map((k) => (
                <MenuItem key={k.id} value={k.id}>
                  {k.name}
                </MenuItem>
              ))}
            </TextField>
          ) : (
            <TextField size="small" required label={t('templates.vaultScriptPath')} placeholder="vault/password-client.py" value={v.script ?? ''} onChange={(e) => set(i, { script: e.target.value })} sx={{ minWidth: 240 }} {...field(i, 'script')} />
          )}
          <IconButton aria-label={t('templates.removeVault')} onClick={() => onChange(vaults.filter((_x, j) => j !== i))}>
            <DeleteIcon fontSize="small" />
          </IconButton>
        </Stack>
      ))}
      <Button size="small" startIcon={<AddIcon />} onClick={() => onChange([...vaults, { name: '', type: 'password' }])} sx={{ alignSelf: 'flex-start' }}>
        {t('templates.addVault')}
      </Button>
    </Stack>
  );
}
