import { Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField } from '@mui/material';
import { TOKEN_EXPIRY_DAYS } from '@gantry/contracts';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { focusFirstField } from '../../../components/focus-first-field';
import { FormError } from '../../../components/form-error';
import { useCreateToken } from '../api/tokens-api';

/** Days a token lives; 0: never expires. */
type Lifetime = 0 | (typeof TOKEN_EXPIRY_DAYS)[number];

/** Asks how long a new token lives (never, or a number of days), creates it and hands its value on. */
export function CreateTokenDialog({ onCreated, onClose }: { onCreated(value: string): void; onClose(): void }) {
  const { t } = useTranslation();
  const create = useCreateToken();
  const [days, setDays] = useState<Lifetime>(0);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const token = await create.mutateAsync({ expires_in_days: days || null }).catch(() => null);
    if (token) onCreated(token.id);
  };
  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{t('tokens.newTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={1} component="form" ref={focusFirstField} id="token-form" noValidate onSubmit={(e) => void submit(e)} sx={{ pt: 1 }}>
          <FormError error={create.error} />
          <TextField
            select
            label={t('tokens.expires')}
            value={days}
            onChange={(e) => setDays(Number(e.target.value) as Lifetime)}
            helperText={t('tokens.expiresHelp')}
          >
            <MenuItem value={0}>{t('tokens.never')}</MenuItem>
            {TOKEN_EXPIRY_DAYS.map((d) => (
              <MenuItem key={d} value={d}>
                {t('tokens.days', { count: d })}
              </MenuItem>
            ))}
          </TextField>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="token-form" variant="contained" disabled={create.isPending}>
          {t('common.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
