import CompareArrowsIcon from '@mui/icons-material/CompareArrows';
import DownloadIcon from '@mui/icons-material/DownloadOutlined';
import { Button, IconButton, Stack, Tooltip, Typography } from '@mui/material';
import type { TerraformStateVersion } from '@gantry/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useSnackbar } from '../../../components/snackbar';
import { errorText } from '../../../lib/error-text';
import { useProjectAccess } from '../../../lib/project-access';
import { downloadState, usePurgeStates } from '../api/terraform-backend-api';
import { StateDiffDialog } from './state-diff-dialog';

/**
 * Above a workspace's state versions: its title, "Compare" (resources of two versions) and, for
 * owners and managers, "Purge state" (every version goes; the HTTP backend then has no state).
 */
export function StateVersionsToolbar({
  projectId,
  inventoryId,
  title,
  versions,
}: {
  projectId: number;
  inventoryId: number;
  title: string;
  versions: TerraformStateVersion[];
}) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const { canManage } = useProjectAccess(projectId);
  const purge = usePurgeStates(projectId, inventoryId);
  const [dialog, setDialog] = useState<'compare' | 'purge' | null>(null);
  const purged = async () => {
    await purge.mutateAsync().then(
      () => snackbar.success(t('terraformBackend.purged')),
      (e: unknown) => snackbar.error(errorText(e)),
    );
    setDialog(null);
  };
  return (
    <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap', maxWidth: 800 }}>
      <Typography variant="subtitle2" sx={{ flex: 1 }}>
        {title}
      </Typography>
      {versions.length >= 2 ? (
        <Button size="small" startIcon={<CompareArrowsIcon />} onClick={() => setDialog('compare')}>
          {t('terraformBackend.compare')}
        </Button>
      ) : null}
      {canManage && versions.length > 0 ? (
        <Button size="small" color="error" onClick={() => setDialog('purge')}>
          {t('terraformBackend.purge')}
        </Button>
      ) : null}
      {dialog === 'compare' ? (
        <StateDiffDialog
          projectId={projectId}
          inventoryId={inventoryId}
          versions={versions}
          onClose={() => setDialog(null)}
        />
      ) : null}
      <ConfirmDialog
        open={dialog === 'purge'}
        title={t('terraformBackend.purgeTitle')}
        text={t('terraformBackend.purgeText', { n: versions.length })}
        confirmLabel={t('terraformBackend.purge')}
        busy={purge.isPending}
        onConfirm={() => void purged()}
        onClose={() => setDialog(null)}
      />
    </Stack>
  );
}

/** Downloads one version as terraform wrote it (secrets included); shown to owners only. */
export function DownloadStateButton({
  projectId,
  inventoryId,
  stateId,
}: {
  projectId: number;
  inventoryId: number;
  stateId: number;
}) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  // Downloading is no edit: allowed in a project managed by code too.
  const { roleCanUpdate } = useProjectAccess(projectId);
  if (!roleCanUpdate) return null;
  return (
    <Tooltip title={t('terraformBackend.download')}>
      <IconButton
        size="small"
        aria-label={t('terraformBackend.downloadOf', { id: stateId })}
        onClick={() =>
          void downloadState(projectId, inventoryId, stateId).catch((e: unknown) => snackbar.error(errorText(e)))
        }
      >
        <DownloadIcon fontSize="small" />
      </IconButton>
    </Tooltip>
  );
}
