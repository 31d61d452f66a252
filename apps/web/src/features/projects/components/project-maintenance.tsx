import CleaningServicesOutlinedIcon from '@mui/icons-material/CleaningServicesOutlined';
import DownloadOutlinedIcon from '@mui/icons-material/DownloadOutlined';
import { Button, CircularProgress, Paper, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useSnackbar } from '../../../components/snackbar';
import { errorText } from '../../../lib/error-text';
import { useBackupProject, useClearProjectCache } from '../api/projects-api';

/** Settings tab section: download a backup of the project, clear its cache (updateProject). */
export function ProjectMaintenance({ projectId }: { projectId: number }) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const backup = useBackupProject(projectId);
  // The same backup in Semaphore UI's format, for a team moving (back) to Semaphore.
  const semaphore = useBackupProject(projectId, 'semaphore');
  const clear = useClearProjectCache(projectId);
  const busy = backup.isPending || semaphore.isPending || clear.isPending;
  const run = (action: typeof backup, done: string) =>
    action.mutate(undefined, { onSuccess: () => snackbar.success(done), onError: (e) => snackbar.error(errorText(e)) });
  const spinner = <CircularProgress size={16} color="inherit" />;

  return (
    <Paper variant="outlined" sx={{ p: 3 }} data-testid="project-maintenance">
      <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
        {t('projects.maintenance')}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {t('projects.backupText')}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {t('projects.clearCacheText')}
      </Typography>
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
        <Button
          variant="outlined"
          startIcon={backup.isPending ? spinner : <DownloadOutlinedIcon />}
          disabled={busy}
          onClick={() => run(backup, t('projects.exported'))}
        >
          {t('projects.backup')}
        </Button>
        <Button
          variant="outlined"
          startIcon={semaphore.isPending ? spinner : <DownloadOutlinedIcon />}
          disabled={busy}
          onClick={() => run(semaphore, t('projects.exported'))}
        >
          {t('projects.backupSemaphore')}
        </Button>
        <Button
          variant="outlined"
          startIcon={clear.isPending ? spinner : <CleaningServicesOutlinedIcon />}
          disabled={busy}
          onClick={() => run(clear, t('projects.cacheCleared'))}
        >
          {t('projects.clearCache')}
        </Button>
      </Stack>
    </Paper>
  );
}
