import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Divider, Stack, TextField } from '@mui/material';
import { environmentInputSchema, type Environment, type EnvironmentInput } from '@gantry/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Controller, useForm, type FieldError } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { focusFirstField } from '../../../components/focus-first-field';
import { FormError } from '../../../components/form-error';
import { api } from '../../../lib/api-client';
import { contractResolver } from '../../../lib/contract-resolver';
import { projectKeys } from '../../../lib/project-queries';
import { SecretsEditor, secretChanges, secretRows, type SecretRow } from './secrets-editor';
import { VarsEditor } from './vars-editor';

interface Values {
  name: string;
  json: string;
  env: string;
  secrets: SecretRow[];
}

const toBody = (v: Values): EnvironmentInput => ({ name: v.name, json: v.json, env: v.env, secrets: secretChanges(v.secrets) });

/** The first message under an error node (the secrets' errors sit at changes' indexes, not rows'). */
function firstMessage(node: unknown): string | undefined {
  if (!node || typeof node !== 'object') return undefined;
  const { message } = node as FieldError;
  if (typeof message === 'string') return message;
  for (const child of Object.values(node)) {
    const m = firstMessage(child);
    if (m) return m;
  }
  return undefined;
}

/**
 * New or edit variable group: extra variables, environment variables, secrets. Errors show on
 * save, then follow every change, so a fixed field clears at once.
 */
export function EnvironmentDialog({ projectId, item, onClose }: { projectId: number; item: Environment | null; onClose(): void }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const form = useForm<Values>({
    resolver: contractResolver<Values>(environmentInputSchema, toBody),
    reValidateMode: 'onChange',
    defaultValues: {
      name: item?.name ?? '',
      json: item ? JSON.stringify(JSON.parse(item.json), null, 2) : '{}',
      env: item ? JSON.stringify(JSON.parse(item.env), null, 2) : '{}',
      secrets: item ? secretRows(item.secrets) : [],
    },
  });
  const errors = form.formState.errors;
  const save = useMutation({
    mutationFn: async (body: EnvironmentInput) => {
      if (item) await api.put(`/project/${projectId}/environment/${item.id}`, body);
      else await api.post(`/project/${projectId}/environment`, body);
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: projectKeys.environments(projectId) }),
  });
  const submit = form.handleSubmit(async (v) => {
    if (await save.mutateAsync(toBody(v)).then(() => true, () => false)) onClose();
  });
  const secretsError = firstMessage(errors.secrets);
  return (
    <Dialog open onClose={onClose} maxWidth="md" fullWidth>
      <DialogTitle>{item ? t('environments.editTitle') : t('environments.newTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} component="form" ref={focusFirstField} id="environment-form" noValidate onSubmit={(e) => void submit(e)} sx={{ pt: 1 }}>
          <FormError error={save.error} />
          <Controller
            name="name"
            control={form.control}
            render={({ field }) => <TextField {...field} label={t('common.name')} required error={!!errors.name} helperText={errors.name?.message ?? ' '} />}
          />
          <Controller
            name="json"
            control={form.control}
            render={({ field }) => <VarsEditor testId="extra-vars" label={t('environments.extraVars')} value={field.value} onChange={field.onChange} error={errors.json?.message} />}
          />
          <Divider />
          <Controller
            name="env"
            control={form.control}
            render={({ field }) => <VarsEditor testId="env-vars" label={t('environments.envVars')} value={field.value} onChange={field.onChange} error={errors.env?.message} />}
          />
          <Divider />
          <Controller name="secrets" control={form.control} render={({ field }) => <SecretsEditor rows={field.value} onChange={field.onChange} />} />
          {secretsError ? <FormError error={new Error(secretsError)} /> : null}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="environment-form" variant="contained" disabled={save.isPending}>
          {item ? t('common.save') : t('common.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
