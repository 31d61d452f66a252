import { Alert, Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import type { RestoreResult } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';

export interface RestoreResultDialogProps {
  result: RestoreResult | null;
  /** Opens the restored project; `keys` goes to its keys page instead of the dashboard. */
  onOpen(to: 'project' | 'keys'): void;
}

/** After a restore: which project was made, and how many keys wait for their secrets. */
export function RestoreResultDialog({ result, onOpen }: RestoreResultDialogProps) {
  const { t } = useTranslation();
  const emptyKeys = result?.emptyKeys ?? 0;
  return (
    <Dialog
      open={!!result}
      onClose={() => onOpen('project')}
      maxWidth="xs"
      fullWidth
      aria-labelledby="restore-result-title"
    >
      <DialogTitle id="restore-result-title">{t('backup.resultTitle')}</DialogTitle>
      <DialogContent>
        <DialogContentText>{t('backup.restored', { name: result?.projectName ?? '' })}</DialogContentText>
        {emptyKeys > 0 ? (
          <Alert severity="warning" sx={{ mt: 2 }} data-testid="restore-empty-keys">
            {t('backup.emptyKeys', { count: emptyKeys })}
          </Alert>
        ) : null}
      </DialogContent>
      <DialogActions>
        {emptyKeys > 0 ? <Button onClick={() => onOpen('keys')}>{t('backup.updateKeys')}</Button> : null}
        <Button variant="contained" onClick={() => onOpen('project')}>
          {t('backup.openProject')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
