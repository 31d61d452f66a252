import { Alert, Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CopyButton, RevealButton } from './token-buttons';

/** Masks a value of this length, so the mask does not tell how long it is. */
export const MASK = '•'.repeat(20);

/**
 * Shows a newly created token, the only time its value can be seen: masked until revealed, with a
 * copy button (copying does not need revealing).
 */
export function NewTokenDialog({ token, onClose }: { token: string; onClose(): void }) {
  const { t } = useTranslation();
  const [shown, setShown] = useState(false);
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{t('tokens.createdTitle')}</DialogTitle>
      <DialogContent>
        <Alert severity="warning" sx={{ mb: 2 }}>
          {t('tokens.createdText')}
        </Alert>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, p: 1.5, bgcolor: 'action.hover', borderRadius: 1 }}>
          <Typography component="code" sx={{ fontFamily: 'monospace', wordBreak: 'break-all', flexGrow: 1 }} data-testid="new-token-value">
            {shown ? token : MASK}
          </Typography>
          <RevealButton shown={shown} onToggle={() => setShown((s) => !s)} showLabel={t('tokens.revealValue')} hideLabel={t('tokens.hideValue')} />
          <CopyButton text={token} label={t('tokens.copyValue')} copied={t('tokens.copied')} />
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
