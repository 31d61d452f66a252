import { Alert } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCurrentUser } from '../../../lib/session';

/** Remembered for this browser tab's session only: the next visit in a new session says it again. */
const seenKey = (userId: number, projectId: number) => `roleNotice:${userId}:${projectId}`;

function seen(key: string): boolean {
  try {
    return window.sessionStorage.getItem(key) === '1';
  } catch {
    return false;
  }
}

function markSeen(key: string): void {
  try {
    window.sessionStorage.setItem(key, '1');
  } catch {
    // Private mode: the notice just shows again next time.
  }
}

/**
 * What the user may do in the project ("You can run any tasks" / read-only), said once per
 * session for each user and project, and dismissible.
 */
export function RoleNotice({ projectId, canRun }: { projectId: number; canRun: boolean }) {
  const { t } = useTranslation();
  const key = seenKey(useCurrentUser().id, projectId);
  // Whether it shows is decided when the page opens; showing it marks it seen for the next visit.
  const [show, setShow] = useState(() => !seen(key));
  useEffect(() => {
    if (show) markSeen(key);
  }, [key, show]);
  if (!show) return null;
  return (
    <Alert severity={canRun ? 'success' : 'info'} variant="outlined" sx={{ mb: 2 }} data-testid="role-notice" onClose={() => setShow(false)} closeText={t('projects.dismissNotice')}>
      {canRun ? t('projects.canRun') : t('projects.readOnly')}
    </Alert>
  );
}
