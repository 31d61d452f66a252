import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack } from '@mui/material';
import { terraformAliasInputSchema, type AccessKey, type TerraformAlias } from '@gantry/contracts';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../../components/form-error';
import { KeySelect } from '../../../components/key-select';
import { contractResolver } from '../../../lib/contract-resolver';
import { useAliasMutations } from '../api/terraform-backend-api';

interface Values {
  auth_key_id: number | '';
}

/**
 * The spec's "alias edit" dialog: a new alias of the workspace, or another key for one. The key's
 * login and password are what terraform sends; only login/password keys are offered.
 */
export function AliasDialog({
  projectId,
  inventoryId,
  alias,
  keys,
  onClose,
}: {
  projectId: number;
  inventoryId: number;
  /** The alias to edit; null for a new one. */
  alias: TerraformAlias | null;
  keys: AccessKey[];
  onClose(): void;
}) {
  const { t } = useTranslation();
  const m = useAliasMutations(projectId, inventoryId);
  const toBody = (v: Values) => ({ auth_key_id: v.auth_key_id || undefined });
  const form = useForm<Values>({
    resolver: contractResolver<Values>(terraformAliasInputSchema, toBody),
    defaultValues: { auth_key_id: alias?.auth_key_id || '' },
  });
  const error = form.formState.errors.auth_key_id;
  const mutation = alias ? m.update : m.create;
  const submit = form.handleSubmit(async (v) => {
    const { auth_key_id } = terraformAliasInputSchema.parse(toBody(v));
    const saved = alias
      ? m.update.mutateAsync({ id: alias.id, authKeyId: auth_key_id })
      : m.create.mutateAsync(auth_key_id);
    if (
      await saved.then(
        () => true,
        () => false,
      )
    )
      onClose();
  });
  const loginKeys = keys.filter((k) => k.type === 'login_password');
  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{alias ? t('terraformBackend.editAlias') : t('terraformBackend.newAlias')}</DialogTitle>
      <DialogContent>
        <Stack
          spacing={1}
          component="form"
          id="terraform-alias-form"
          noValidate
          onSubmit={(ev) => void submit(ev)}
          sx={{ pt: 1 }}
        >
          <FormError error={mutation.error} />
          <Controller
            name="auth_key_id"
            control={form.control}
            render={({ field }) => (
              <KeySelect
                {...field}
                keys={loginKeys}
                label={t('terraformBackend.authKey')}
                required
                error={!!error}
                helperText={error?.message ?? t('terraformBackend.authKeyHint')}
              />
            )}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="terraform-alias-form" variant="contained" disabled={form.formState.isSubmitting}>
          {alias ? t('common.save') : t('common.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
