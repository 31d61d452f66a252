import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import { Button, IconButton, MenuItem, Stack, TextField, Typography } from '@mui/material';
import type { AccessKey, TemplateInput } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';

export type VaultDraft = NonNullable<TemplateInput['vaults']>[number];

/** Ansible vaults: a password from a login-with-password key, or a "-client" script in the repository. */
export function VaultsEditor({ vaults, keys, onChange }: { vaults: VaultDraft[]; keys: AccessKey[]; onChange(v: VaultDraft[]): void }) {
  const { t } = useTranslation();
  const set = (i: number, patch: Partial<VaultDraft>) => onChange(vaults.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  return (
    <Stack spacing={1}>
      <Typography variant="subtitle2">{t('templates.vaults')}</Typography>
      {vaults.map((v, i) => (
        <Stack key={i} direction="row" spacing={1}>
          <TextField size="small" label={t('templates.vaultName')} placeholder={t('templates.vaultDefault')} value={v.name ?? ''} onChange={(e) => set(i, { name: e.target.value })} />
          <TextField size="small" select label={t('templates.vaultType')} value={v.type} onChange={(e) => set(i, { type: e.target.value as VaultDraft['type'] })} sx={{ minWidth: 130 }}>
            <MenuItem value="password">{t('templates.vaultPassword')}</MenuItem>
            <MenuItem value="script">{t('templates.vaultScript')}</MenuItem>
          </TextField>
          {v.type === 'password' ? (
            <TextField size="small" select label={t('templates.vaultKey')} value={v.vault_key_id ?? ''} onChange={(e) => set(i, { vault_key_id: Number(e.target.value) })} sx={{ minWidth: 200 }}>
              {keys.filter((k) => k.type === 'login_password').map((k) => (
                <MenuItem key={k.id} value={k.id}>
                  {k.name}
                </MenuItem>
              ))}
            </TextField>
          ) : (
            <TextField size="small" label={t('templates.vaultScriptPath')} placeholder="vault/password-client.py" value={v.script ?? ''} onChange={(e) => set(i, { script: e.target.value })} sx={{ minWidth: 240 }} />
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
