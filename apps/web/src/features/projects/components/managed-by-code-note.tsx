import { Alert } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useProjectAccess } from '../../../lib/project-access';

/**
 * At the top of every page of a project managed by code: why its create/edit/delete controls are
 * gone (the access flags are off, see `useProjectAccess`) and where changes are made instead.
 */
export function ManagedByCodeNote({ projectId }: { projectId: number }) {
  const { t } = useTranslation();
  if (!useProjectAccess(projectId).managedByCode) return null;
  return (
    <Alert severity="info" variant="outlined" sx={{ mb: 2 }} data-testid="managed-by-code-note">
      {t('projects.managedNote')}
    </Alert>
  );
}
