import UploadFileIcon from '@mui/icons-material/UploadFile';
import { Alert, Box, Button, FormHelperText, Paper, Stack, TextField, Typography } from '@mui/material';
import { projectUpdateSchema, type ProjectBackupInput, type RestoreResult } from '@gantry/contracts';
import { useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { FormError } from '../../components/form-error';
import { PageHeader } from '../../components/page-header';
import { contractResolver } from '../../lib/contract-resolver';
import { paths } from '../../lib/paths';
import { useCurrentUser } from '../../lib/session';
import { readBackupFile, useRestoreProject } from './api/restore-api';
import { RestoreResultDialog } from './components/restore-result-dialog';

interface RestoreFormValues {
  name: string;
}
const nameSchema = projectUpdateSchema.pick({ name: true });

/** /project/restore: pick a backup file, name the new project, restore it, see the result. */
export function RestoreProjectPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const user = useCurrentUser();
  const restore = useRestoreProject();
  const form = useForm<RestoreFormValues>({
    resolver: contractResolver<RestoreFormValues>(nameSchema),
    defaultValues: { name: '' },
  });
  const [file, setFile] = useState<{ name: string; backup: ProjectBackupInput | null } | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [result, setResult] = useState<RestoreResult | null>(null);

  if (!user.can_create_project) {
    return (
      <Box sx={{ maxWidth: 560 }}>
        <PageHeader title={t('backup.restoreTitle')} />
        <Alert severity="info">{t('backup.cannotCreate')}</Alert>
      </Box>
    );
  }

  const pick = async (chosen: File | undefined) => {
    if (!chosen) return;
    const backup = await readBackupFile(chosen);
    setFile({ name: chosen.name, backup });
    setFileError(backup ? null : t('backup.invalidFile'));
    // The form's name replaces the file's (spec); it starts as the name the backup carries.
    if (backup && typeof backup.meta.name === 'string')
      form.setValue('name', backup.meta.name, { shouldValidate: true });
  };

  /** The chosen backup, or null after saying what is wrong with the file field. */
  const checkedBackup = (): ProjectBackupInput | null => {
    if (!file?.backup) setFileError(file ? t('backup.invalidFile') : t('backup.fileRequired'));
    return file?.backup ?? null;
  };
  const submit = form.handleSubmit(
    async ({ name }) => {
      const backup = checkedBackup();
      if (!backup) return;
      const done = await restore.mutateAsync({ ...backup, meta: { ...backup.meta, name } }).catch(() => null);
      if (done) setResult(done);
    },
    () => void checkedBackup(),
  );

  return (
    <Box sx={{ maxWidth: 560 }}>
      <PageHeader title={t('backup.restoreTitle')} />
      <Paper variant="outlined" sx={{ p: 3 }} component="form" noValidate onSubmit={(e) => void submit(e)}>
        <FormError error={restore.error} />
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          {t('backup.restoreText')}
        </Typography>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center', minWidth: 0 }}>
          <Button
            component="label"
            variant="outlined"
            startIcon={<UploadFileIcon />}
            sx={{ flexShrink: 0, whiteSpace: 'nowrap' }}
          >
            {t('backup.chooseFile')}
            <input
              hidden
              type="file"
              accept=".json,application/json"
              data-testid="backup-file"
              onChange={(e) => {
                void pick(e.target.files?.[0]);
                e.target.value = '';
              }}
            />
          </Button>
          <Typography
            variant="body2"
            noWrap
            data-testid="backup-file-name"
            color={file ? 'text.primary' : 'text.secondary'}
          >
            {file?.name ?? t('backup.noFile')}
          </Typography>
        </Stack>
        <FormHelperText error={!!fileError} sx={{ mb: 2 }}>
          {fileError ?? ' '}
        </FormHelperText>
        <Controller
          name="name"
          control={form.control}
          render={({ field }) => (
            <TextField
              {...field}
              fullWidth
              label={t('projects.name')}
              required
              error={!!form.formState.errors.name}
              helperText={form.formState.errors.name?.message ?? ' '}
            />
          )}
        />
        <Box sx={{ mt: 2 }}>
          <Button type="submit" variant="contained" disabled={restore.isPending}>
            {t('backup.restore')}
          </Button>
        </Box>
      </Paper>
      <RestoreResultDialog
        result={result}
        onOpen={(to) =>
          result && void navigate(to === 'keys' ? paths.projectSection(result.id, 'keys') : paths.history(result.id))
        }
      />
    </Box>
  );
}
