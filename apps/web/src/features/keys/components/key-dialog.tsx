import { Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField } from '@mui/material';
import { KEY_TYPES, keyInputSchema, type AccessKey, type KeyInput } from '@gantry/contracts';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { focusFirstField } from '../../../components/focus-first-field';
import { FormError } from '../../../components/form-error';
import { contractResolver } from '../../../lib/contract-resolver';
import { useSaveKey } from '../api/keys-api';
import { StoredSecret } from './stored-secret';

interface Values {
  name: string;
  type: AccessKey['type'] | '';
  override_secret: boolean;
  ssh: { login: string; passphrase: string; private_key: string };
  login_password: { login: string; password: string };
}

/**
 * New or edit key. Editing keeps the stored secret: instead of its fields the dialog says it is
 * stored, with a Replace button that opens them (override_secret) and a way back to keeping it.
 */
export function KeyDialog({ projectId, item, onClose }: { projectId: number; item: AccessKey | null; onClose(): void }) {
  const { t } = useTranslation();
  const isNew = !item;
  const save = useSaveKey(projectId, item?.id ?? null);
  const form = useForm<Values>({
    resolver: contractResolver<Values>(keyInputSchema(isNew), (v) => ({ ...v, type: v.type || undefined })),
    defaultValues: {
      name: item?.name ?? '',
      type: item?.type ?? '',
      override_secret: false,
      // The API sends the secret fields blank; only the login of the key's own type is filled in.
      ssh: { login: item?.ssh.login ?? '', passphrase: '', private_key: '' },
      login_password: { login: item?.login_password.login ?? '', password: '' },
    },
  });
  const type = form.watch('type');
  const override = form.watch('override_secret');
  const locked = !isNew && !override;
  const e = form.formState.errors;
  const submit = form.handleSubmit(async (v) => {
    const body: KeyInput = { name: v.name, type: v.type as AccessKey['type'], override_secret: v.override_secret };
    if (v.type === 'ssh') body.ssh = v.ssh;
    if (v.type === 'login_password') body.login_password = v.login_password;
    if (await save.mutateAsync(body).then(() => true, () => false)) onClose();
  });
  const field = (name: 'ssh.login' | 'ssh.passphrase' | 'ssh.private_key' | 'login_password.login' | 'login_password.password', label: string, opts: { type?: string; multiline?: boolean; error?: string } = {}) => (
    <Controller
      name={name}
      control={form.control}
      render={({ field: { ref, ...f } }) => (
        <TextField
          {...f}
          inputRef={ref}
          label={label}
          type={opts.type}
          multiline={opts.multiline}
          minRows={opts.multiline ? 6 : undefined}
          disabled={locked}
          error={!!opts.error}
          helperText={opts.error ?? ' '}
          slotProps={{ htmlInput: { style: opts.multiline ? { fontFamily: 'monospace', fontSize: 12 } : undefined, autoComplete: 'off' } }}
        />
      )}
    />
  );
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{isNew ? t('keys.newTitle') : t('keys.editTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={1} component="form" ref={focusFirstField} id="key-form" noValidate onSubmit={(ev) => void submit(ev)} sx={{ pt: 1 }}>
          <FormError error={save.error} />
          <Controller name="name" control={form.control} render={({ field: f }) => <TextField {...f} label={t('common.name')} required error={!!e.name} helperText={e.name?.message ?? ' '} />} />
          <Controller
            name="type"
            control={form.control}
            render={({ field: f }) => (
              <TextField {...f} select label={t('keys.type')} required error={!!e.type} helperText={e.type?.message ?? ' '}>
                {KEY_TYPES.map((k) => (
                  <MenuItem key={k} value={k}>
                    {t(`keys.types.${k}`)}
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
          {type === 'ssh' ? (
            <>
              {field('ssh.login', t('keys.login'))}
              {locked ? null : field('ssh.passphrase', t('keys.passphrase'), { type: 'password' })}
              {locked ? null : field('ssh.private_key', t('keys.privateKey'), { multiline: true, error: e.ssh?.private_key?.message })}
            </>
          ) : null}
          {type === 'login_password' ? (
            <>
              {field('login_password.login', t('keys.login'))}
              {locked ? null : field('login_password.password', t('keys.password'), { type: 'password', error: e.login_password?.password?.message })}
            </>
          ) : null}
          {!isNew && (type === 'ssh' || type === 'login_password') ? (
            <StoredSecret
              replacing={override}
              onReplace={() => {
                form.setValue('override_secret', true);
                // The first secret field (now shown) takes the keyboard.
                setTimeout(() => form.setFocus(type === 'ssh' ? 'ssh.passphrase' : 'login_password.password'));
              }}
              onKeep={() => {
                form.setValue('override_secret', false);
                form.clearErrors(['ssh', 'login_password']);
              }}
            />
          ) : null}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="key-form" variant="contained" disabled={save.isPending}>
          {isNew ? t('common.create') : t('common.save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
