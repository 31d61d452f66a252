import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Divider, Stack, TextField } from '@mui/material';
import { environmentInputSchema, type Environment, type EnvironmentInput } from '@gantry/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../../components/form-error';
import { api } from '../../../lib/api-client';
import { projectKeys } from '../../../lib/project-queries';
import { SecretsEditor, secretChanges, secretRows, type SecretRow } from './secrets-editor';
import { VarsEditor } from './vars-editor';

/** New or edit variable group: extra variables, environment variables, secrets. */
export function EnvironmentDialog({ projectId, item, onClose }: { projectId: number; item: Environment | null; onClose(): void }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [name, setName] = useState(item?.name ?? '');
  const [json, setJson] = useState(item ? JSON.stringify(JSON.parse(item.json), null, 2) : '{}');
  const [env, setEnv] = useState(item ? JSON.stringify(JSON.parse(item.env), null, 2) : '{}');
  const [secrets, setSecrets] = useState<SecretRow[]>(item ? secretRows(item.secrets) : []);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = useMutation({
    mutationFn: async (body: EnvironmentInput) => {
      if (item) await api.put(`/project/${projectId}/environment/${item.id}`, body);
      else await api.post(`/project/${projectId}/environment`, body);
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: projectKeys.environments(projectId) }),
  });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body = { name, json, env, secrets: secretChanges(secrets) };
    const r = environmentInputSchema.safeParse(body);
    if (!r.success) {
      setErrors(Object.fromEntries(r.error.issues.map((i) => [String(i.path[0] ?? 'name'), i.message])));
      return;
    }
    setErrors({});
    if (await save.mutateAsync(body).then(() => true, () => false)) onClose();
  };
  return (
    <Dialog open onClose={onClose} maxWidth="md" fullWidth>
      <DialogTitle>{item ? t('environments.editTitle') : t('environments.newTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} component="form" id="environment-form" noValidate onSubmit={(e) => void submit(e)} sx={{ pt: 1 }}>
          <FormError error={save.error} />
          <TextField label={t('common.name')} value={name} onChange={(e) => setName(e.target.value)} required error={!!errors.name} helperText={errors.name ?? ' '} />
          <VarsEditor testId="extra-vars" label={t('environments.extraVars')} value={json} onChange={setJson} error={errors.json} />
          <Divider />
          <VarsEditor testId="env-vars" label={t('environments.envVars')} value={env} onChange={setEnv} error={errors.env} />
          <Divider />
          <SecretsEditor rows={secrets} onChange={setSecrets} />
          {errors.secrets ? <FormError error={new Error(errors.secrets)} /> : null}
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
