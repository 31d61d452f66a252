import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField } from '@mui/material';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { focusFirstField } from '../../../components/focus-first-field';
import { FormError } from '../../../components/form-error';
import { useSnackbar } from '../../../components/snackbar';
import { useCurrentUser } from '../../../lib/session';
import { useChangePassword } from '../api/users-api';

/** Change a password; your own needs the current one. */
export function PasswordDialog({ userId, name, onClose }: { userId: number; name: string; onClose(): void }) {
  const { t } = useTranslation();
  const me = useCurrentUser();
  const snackbar = useSnackbar();
  const change = useChangePassword(userId);
  const self = me.id === userId;
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [touched, setTouched] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!password || (self && !current)) return;
    const ok = await change.mutateAsync({ password, ...(self ? { current_password: current } : {}) }).then(() => true).catch(() => false);
    if (!ok) return;
    snackbar.success(t('users.passwordChanged'));
    onClose();
  };
  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{self ? t('users.passwordTitle') : t('users.changePassword', { name })}</DialogTitle>
      <DialogContent>
        <Stack spacing={1} component="form" ref={focusFirstField} id="password-form" noValidate onSubmit={(e) => void submit(e)} sx={{ pt: 1 }}>
          <FormError error={change.error} />
          {self ? (
            <TextField type="password" label={t('users.currentPassword')} value={current} onChange={(e) => setCurrent(e.target.value)} autoComplete="current-password" required error={touched && !current} helperText={touched && !current ? t('auth.passwordRequired') : ' '} />
          ) : null}
          <TextField type="password" label={t('users.newPassword')} value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" required error={touched && !password} helperText={touched && !password ? t('auth.passwordRequired') : ' '} />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="password-form" variant="contained" disabled={change.isPending}>
          {t('common.save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
