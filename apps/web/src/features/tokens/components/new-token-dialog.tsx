import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { Alert, Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, IconButton, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useSnackbar } from '../../../components/snackbar';

/** Shows a newly created token's value, the only time it can be seen, with a copy button. */
export function NewTokenDialog({ token, onClose }: { token: string; onClose(): void }) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token);
      snackbar.success(t('tokens.copied'));
    } catch (e) {
      snackbar.error(t('tokens.copyFailed', { message: (e as Error).message }));
    }
  };
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{t('tokens.createdTitle')}</DialogTitle>
      <DialogContent>
        <Alert severity="warning" sx={{ mb: 2 }}>
          {t('tokens.createdText')}
        </Alert>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, p: 1.5, bgcolor: 'action.hover', borderRadius: 1 }}>
          <Typography component="code" sx={{ fontFamily: 'monospace', wordBreak: 'break-all', flexGrow: 1 }} data-testid="new-token-value">
            {token}
          </Typography>
          <IconButton aria-label={t('common.copy')} onClick={() => void copy()}>
            <ContentCopyIcon fontSize="small" />
          </IconButton>
        </Box>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} variant="contained">
          {t('common.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
