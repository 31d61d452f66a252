import { Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField } from '@mui/material';
import { workspaceAttachSchema, workspaceFormSchema, type AccessKey, type Inventory } from '@gantry/contracts';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { focusFirstField } from '../../../components/focus-first-field';
import { FormError } from '../../../components/form-error';
import { KeySelect } from '../../../components/key-select';
import { contractResolver } from '../../../lib/contract-resolver';
import { useCreateWorkspace, useWorkspaceAction } from '../api/workspaces-api';

interface NewValues {
  name: string;
  ssh_key_id: number | '';
}

/** New workspace: a workspace inventory named as the workspace, attached to the template. */
export function NewWorkspaceDialog({
  projectId,
  templateId,
  app,
  keys,
  onClose,
}: {
  projectId: number;
  templateId: number;
  app: string;
  keys: AccessKey[];
  onClose(): void;
}) {
  const { t } = useTranslation();
  const create = useCreateWorkspace(projectId, templateId, app);
  const toBody = (v: NewValues) => ({ ...v, ssh_key_id: v.ssh_key_id || undefined });
  const form = useForm<NewValues>({
    resolver: contractResolver<NewValues>(workspaceFormSchema, toBody),
    defaultValues: { name: '', ssh_key_id: '' },
  });
  const e = form.formState.errors;
  const submit = form.handleSubmit(async (v) => {
    if (
      await create.mutateAsync(workspaceFormSchema.parse(toBody(v))).then(
        () => true,
        () => false,
      )
    )
      onClose();
  });
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{t('workspaces.newTitle')}</DialogTitle>
      <DialogContent>
        <Stack
          spacing={1}
          component="form"
          ref={focusFirstField}
          id="workspace-form"
          noValidate
          onSubmit={(ev) => void submit(ev)}
          sx={{ pt: 1 }}
        >
          <FormError error={create.error} />
          <Controller
            name="name"
            control={form.control}
            render={({ field }) => (
              <TextField
                {...field}
                label={t('common.name')}
                required
                error={!!e.name}
                helperText={e.name?.message ?? ' '}
              />
            )}
          />
          <Controller
            name="ssh_key_id"
            control={form.control}
            render={({ field }) => (
              <KeySelect
                {...field}
                keys={keys}
                label={t('workspaces.key')}
                required
                error={!!e.ssh_key_id}
                helperText={e.ssh_key_id?.message ?? ' '}
              />
            )}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="workspace-form" variant="contained" disabled={form.formState.isSubmitting}>
          {t('common.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** Attach workspace: one of the project's workspace inventories of the app that no template has. */
export function AttachWorkspaceDialog({
  projectId,
  templateId,
  candidates,
  onClose,
}: {
  projectId: number;
  templateId: number;
  candidates: Inventory[];
  onClose(): void;
}) {
  const { t } = useTranslation();
  const attach = useWorkspaceAction(projectId, templateId);
  const toBody = (v: { inventory_id: number | '' }) => ({ inventory_id: v.inventory_id || undefined });
  const form = useForm<{ inventory_id: number | '' }>({
    resolver: contractResolver(workspaceAttachSchema, toBody),
    defaultValues: { inventory_id: '' },
  });
  const error = form.formState.errors.inventory_id;
  const submit = form.handleSubmit(async (v) => {
    const { inventory_id } = workspaceAttachSchema.parse(toBody(v));
    if (
      await attach.mutateAsync({ action: 'attach', inventoryId: inventory_id }).then(
        () => true,
        () => false,
      )
    )
      onClose();
  });
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{t('workspaces.attachTitle')}</DialogTitle>
      <DialogContent>
        <Stack
          spacing={1}
          component="form"
          ref={focusFirstField}
          id="attach-workspace-form"
          noValidate
          onSubmit={(ev) => void submit(ev)}
          sx={{ pt: 1 }}
        >
          <FormError error={attach.error} />
          <Controller
            name="inventory_id"
            control={form.control}
            render={({ field }) => (
              <TextField
                {...field}
                select
                label={t('workspaces.workspace')}
                required
                error={!!error}
                helperText={
                  error ? t('workspaces.template_required') : candidates.length ? ' ' : t('workspaces.noneToAttach')
                }
              >
                {candidates.map((w) => (
                  <MenuItem key={w.id} value={w.id}>
                    {w.name}
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="attach-workspace-form" variant="contained" disabled={form.formState.isSubmitting}>
          {t('workspaces.attach')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
