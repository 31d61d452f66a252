import { Button, Checkbox, Dialog, DialogActions, DialogContent, DialogTitle, FormControlLabel, Stack, Tab, Tabs, TextField, Typography } from '@mui/material';
import { userCreateFormSchema, userUpdateSchema, type User } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { focusFirstField } from '../../../components/focus-first-field';
import { FormError } from '../../../components/form-error';
import { contractResolver } from '../../../lib/contract-resolver';
import { useSnackbar } from '../../../components/snackbar';
import { infoQuery, useCurrentUser } from '../../../lib/session';
import { useSaveUser, userByIdQuery } from '../api/users-api';
import { SecurityPanel } from './security-panel';

interface Values {
  name: string;
  username: string;
  email: string;
  password: string;
  alert: boolean;
  admin: boolean;
  external: boolean;
}

/** Validates with the contracts' schema for create or update, so messages match the server's. */
function resolverFor(isNew: boolean) {
  return isNew
    ? contractResolver<Values>(userCreateFormSchema, (v) => ({ ...v, password: v.password || undefined }))
    : contractResolver<Values>(userUpdateSchema);
}

/**
 * Create a user, or edit one (tabs Settings and Security). Editing always has the Security tab,
 * which says so when two-factor sign-in is off on this server; creating has it only when it is on
 * (spec 01 §6). Users editing themselves see no admin flags.
 */
export function UserDialog({ userId, onClose }: { userId: number | null; onClose(): void }) {
  const { t } = useTranslation();
  const me = useCurrentUser();
  const snackbar = useSnackbar();
  const isNew = userId === null;
  const existing = useQuery({ ...userByIdQuery(userId ?? 0), enabled: !isNew }).data;
  const totp = useQuery(infoQuery).data?.auth_methods.totp.enabled ?? false;
  const save = useSaveUser(userId);
  const [tab, setTab] = useState<'settings' | 'security'>('settings');
  const form = useForm<Values>({
    resolver: resolverFor(isNew),
    defaultValues: { name: '', username: '', email: '', password: '', alert: false, admin: false, external: false },
  });
  useEffect(() => {
    if (existing) {
      const { name, username, email, alert, admin, external } = existing;
      form.reset({ name, username, email, alert, admin, external, password: '' });
    }
  }, [existing, form]);
  const security = tab === 'security';
  const external = form.watch('external');
  const errors = form.formState.errors;

  const submit = form.handleSubmit(async (v) => {
    const body = isNew
      ? { ...v, password: v.external ? undefined : v.password }
      : { name: v.name, username: v.username, email: v.email, alert: v.alert, ...(me.admin ? { admin: v.admin } : {}), external: (existing as User).external };
    const ok = await save.mutateAsync(body).then(() => true).catch(() => false);
    if (!ok) return;
    snackbar.success(t(isNew ? 'users.created' : 'users.saved', { name: v.name }));
    onClose();
  });

  const text = (name: 'name' | 'username' | 'email', label: string, disabled = false) => (
    <Controller
      name={name}
      control={form.control}
      render={({ field }) => <TextField {...field} label={label} required disabled={disabled} error={!!errors[name]} helperText={errors[name]?.message ?? ' '} />}
    />
  );
  const check = (name: 'alert' | 'admin' | 'external', label: string, disabled = false) => (
    <Controller
      name={name}
      control={form.control}
      render={({ field }) => <FormControlLabel control={<Checkbox checked={field.value} disabled={disabled} onChange={(e) => field.onChange(e.target.checked)} />} label={label} />}
    />
  );

  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{isNew ? t('users.newTitle') : userId === me.id ? t('users.accountTitle') : t('users.editTitle')}</DialogTitle>
      {!isNew || totp ? (
        <Tabs value={tab} onChange={(_e, v: 'settings' | 'security') => setTab(v)} sx={{ px: 3 }}>
          <Tab value="settings" label={t('users.settingsTab')} />
          <Tab value="security" label={t('users.securityTab')} />
        </Tabs>
      ) : null}
      <DialogContent>
        {security ? (
          existing ? (
            <SecurityPanel user={existing} self={existing.id === me.id} />
          ) : (
            <Typography variant="body2" color="text.secondary" sx={{ pt: 1 }}>
              {t('users.totpAfterCreate')}
            </Typography>
          )
        ) : null}
        <Stack spacing={1} component="form" ref={focusFirstField} id="user-form" noValidate onSubmit={(e) => void submit(e)} sx={{ pt: 1, display: security ? 'none' : undefined }}>
          <FormError error={save.error} />
          {text('name', t('users.name'))}
          {text('username', t('users.username'))}
          {text('email', t('users.email'), !isNew && !!existing?.external)}
          {isNew && !external ? (
            <Controller
              name="password"
              control={form.control}
              render={({ field }) => <TextField {...field} type="password" label={t('users.password')} required autoComplete="new-password" error={!!errors.password} helperText={errors.password?.message ?? ' '} />}
            />
          ) : null}
          {check('alert', t('users.sendAlerts'))}
          {me.admin ? check('admin', t('users.isAdmin')) : null}
          {me.admin ? check('external', t('users.isExternal'), !isNew) : null}
        </Stack>
      </DialogContent>
      <DialogActions>
        {security ? (
          <Button onClick={onClose}>{t('common.close')}</Button>
        ) : (
          <>
            <Button onClick={onClose}>{t('common.cancel')}</Button>
            <Button type="submit" form="user-form" variant="contained" disabled={save.isPending}>
              {isNew ? t('common.create') : t('common.save')}
            </Button>
          </>
        )}
      </DialogActions>
    </Dialog>
  );
}
