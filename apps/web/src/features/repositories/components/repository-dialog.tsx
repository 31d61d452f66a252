import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField } from '@mui/material';
import { isLocalGitUrl, repositoryInputSchema, type AccessKey, type Repository } from '@gantry/contracts';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { focusFirstField } from '../../../components/focus-first-field';
import { FormError } from '../../../components/form-error';
import { contractResolver } from '../../../lib/contract-resolver';
import { useSaveRepository } from '../api/repositories-api';
import { KeySelect } from '../../../components/key-select';

interface Values {
  name: string;
  git_url: string;
  git_branch: string;
  ssh_key_id: number | '';
}

/** New or edit repository; the branch is hidden (and not required) for a local path. */
export function RepositoryDialog({ projectId, item, keys, onClose }: { projectId: number; item: Repository | null; keys: AccessKey[]; onClose(): void }) {
  const { t } = useTranslation();
  const save = useSaveRepository(projectId, item?.id ?? null);
  const form = useForm<Values>({
    resolver: contractResolver<Values>(repositoryInputSchema, (v) => ({ ...v, ssh_key_id: v.ssh_key_id || undefined })),
    defaultValues: { name: item?.name ?? '', git_url: item?.git_url ?? '', git_branch: item?.git_branch ?? 'main', ssh_key_id: item?.ssh_key_id ?? '' },
  });
  const local = isLocalGitUrl(form.watch('git_url'));
  const e = form.formState.errors;
  const submit = form.handleSubmit(async (v) => {
    const body = repositoryInputSchema.parse({ ...v, ssh_key_id: v.ssh_key_id || undefined });
    if (await save.mutateAsync(body).then(() => true, () => false)) onClose();
  });
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{item ? t('repositories.editTitle') : t('repositories.newTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={1} component="form" ref={focusFirstField} id="repository-form" noValidate onSubmit={(ev) => void submit(ev)} sx={{ pt: 1 }}>
          <FormError error={save.error} />
          <Controller name="name" control={form.control} render={({ field }) => <TextField {...field} label={t('common.name')} required error={!!e.name} helperText={e.name?.message ?? ' '} />} />
          <Controller
            name="git_url"
            control={form.control}
            render={({ field }) => <TextField {...field} label={t('repositories.url')} required placeholder="git@github.com:org/repo.git" error={!!e.git_url} helperText={e.git_url?.message ?? t('repositories.urlHelp')} />}
          />
          {!local ? (
            <Controller name="git_branch" control={form.control} render={({ field }) => <TextField {...field} label={t('repositories.branch')} required error={!!e.git_branch} helperText={e.git_branch?.message ?? ' '} />} />
          ) : null}
          <Controller
            name="ssh_key_id"
            control={form.control}
            render={({ field }) => <KeySelect {...field} keys={keys} label={t('repositories.key')} required error={!!e.ssh_key_id} helperText={e.ssh_key_id?.message ?? t('repositories.keyHelp')} />}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="repository-form" variant="contained" disabled={save.isPending}>
          {item ? t('common.save') : t('common.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
