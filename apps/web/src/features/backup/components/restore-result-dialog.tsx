import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Typography,
} from '@mui/material';
import type { RestoreResult } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';

export interface RestoreResultDialogProps {
  result: RestoreResult | null;
  /** Opens the restored project; `keys` goes to its keys page instead of the dashboard. */
  onOpen(to: 'project' | 'keys'): void;
}

/**
 * After a restore: which project was made, how many keys wait for their secrets, and each thing
 * the backup held that could not be carried over (a reference or an object left out).
 */
export function RestoreResultDialog({ result, onOpen }: RestoreResultDialogProps) {
  const { t } = useTranslation();
  const emptyKeys = result?.emptyKeys ?? 0;
  const unmapped = result?.unmapped ?? [];
  return (
    <Dialog
      open={!!result}
      onClose={() => onOpen('project')}
      maxWidth={unmapped.length ? 'sm' : 'xs'}
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
        {unmapped.length > 0 ? (
          <Alert severity="info" sx={{ mt: 2 }} data-testid="restore-unmapped">
            <Typography variant="body2">{t('backup.unmappedTitle', { count: unmapped.length })}</Typography>
            <Box component="ul" sx={{ m: 0, mt: 1, pl: 2.5, maxHeight: 240, overflowY: 'auto' }}>
              {unmapped.map((line, i) => (
                <Typography component="li" variant="body2" key={i}>
                  {line}
                </Typography>
              ))}
            </Box>
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
