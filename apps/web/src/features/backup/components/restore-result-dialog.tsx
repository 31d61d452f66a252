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
 * After a restore: which project was made, which keys and secrets wait to be filled in, and each thing
 * the backup held that could not be carried over (a reference or an object left out).
 */
export function RestoreResultDialog({ result, onOpen }: RestoreResultDialogProps) {
  const { t } = useTranslation();
  const emptyKeys = result?.emptyKeys ?? 0;
  const unmapped = result?.unmapped ?? [];
  // Named one by one where the server lists them (an older server gives the count of keys only).
  const emptySecrets = result?.emptySecrets ?? [];
  return (
    <Dialog
      open={!!result}
      onClose={() => onOpen('project')}
      maxWidth={unmapped.length || emptySecrets.length ? 'sm' : 'xs'}
      fullWidth
      aria-labelledby="restore-result-title"
    >
      <DialogTitle id="restore-result-title">{t('backup.resultTitle')}</DialogTitle>
      <DialogContent>
        <DialogContentText>{t('backup.restored', { name: result?.projectName ?? '' })}</DialogContentText>
        {emptySecrets.length > 0 ? (
          <ListedAlert
            severity="warning"
            testId="restore-empty-secrets"
            title={t('backup.emptySecretsTitle', { count: emptySecrets.length })}
            items={emptySecrets.map((item) =>
              item.kind === 'key' ? t('backup.emptyKeyItem', { name: item.name }) : t('backup.emptySecretItem', { name: item.name, group: item.group }),
            )}
          />
        ) : emptyKeys > 0 ? (
          <Alert severity="warning" sx={{ mt: 2 }} data-testid="restore-empty-keys">
            {t('backup.emptyKeys', { count: emptyKeys })}
          </Alert>
        ) : null}
        {unmapped.length > 0 ? (
          <ListedAlert severity="info" testId="restore-unmapped" title={t('backup.unmappedTitle', { count: unmapped.length })} items={unmapped} />
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

/** A note with a title and the lines it is about, scrolling past a few dozen. */
function ListedAlert(props: { severity: 'warning' | 'info'; testId: string; title: string; items: string[] }) {
  return (
    <Alert severity={props.severity} sx={{ mt: 2 }} data-testid={props.testId}>
      <Typography variant="body2">{props.title}</Typography>
      <Box component="ul" sx={{ m: 0, mt: 1, pl: 2.5, maxHeight: 240, overflowY: 'auto' }}>
        {props.items.map((line, i) => (
          <Typography component="li" variant="body2" key={i}>
            {line}
          </Typography>
        ))}
      </Box>
    </Alert>
  );
}
