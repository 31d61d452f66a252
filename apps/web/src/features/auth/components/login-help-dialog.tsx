import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';

const COMMANDS = [
  { labelKey: 'auth.helpList', command: 'gantry user list' },
  { labelKey: 'auth.helpChange', command: 'gantry user change-by-login --login <login> --password <password>' },
  { labelKey: 'auth.helpAdd', command: 'gantry user add --admin --login <login> --name <name> --email <email> --password <password>' },
];

/** Explains how an administrator recovers access from the server's command line. */
export function LoginHelpDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const { t } = useTranslation();
  return (
    <Dialog open={open} onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{t('auth.helpTitle')}</DialogTitle>
      <DialogContent>
        <Typography sx={{ mb: 2 }}>{t('auth.helpIntro')}</Typography>
        {COMMANDS.map((c) => (
          <Box key={c.command} sx={{ mb: 2 }}>
            <Typography variant="subtitle2">{t(c.labelKey)}</Typography>
            <Box component="code" sx={{ display: 'block', p: 1, mt: 0.5, bgcolor: 'action.hover', borderRadius: 1, fontSize: 13, overflowX: 'auto' }}>
              {c.command}
            </Box>
          </Box>
        ))}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}
