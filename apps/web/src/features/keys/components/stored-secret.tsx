import LockIcon from '@mui/icons-material/LockOutlined';
import { Box, Button, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';

/**
 * In an edited key, where its secret fields would be: a lock and "Stored" (the secret is kept and
 * never sent back) with a Replace button that opens the fields to type a new one; while replacing,
 * a button to keep the stored secret after all.
 */
export function StoredSecret({ replacing, onReplace, onKeep }: { replacing: boolean; onReplace(): void; onKeep(): void }) {
  const { t } = useTranslation();
  if (replacing) {
    return (
      <Box>
        <Button size="small" onClick={onKeep}>
          {t('keys.keepStored')}
        </Button>
      </Box>
    );
  }
  return (
    <Box
      data-testid="stored-secret"
      sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 1.5, py: 1, border: 1, borderColor: 'divider', borderRadius: 1, mb: 2.5 }}
    >
      <LockIcon fontSize="small" color="action" />
      <Box sx={{ flexGrow: 1, minWidth: 0 }}>
        <Typography variant="body2" sx={{ fontWeight: 500 }}>
          {t('keys.storedLabel')}
        </Typography>
        <Typography variant="caption" color="text.secondary">
          {t('keys.storedHint')}
        </Typography>
      </Box>
      <Button variant="outlined" size="small" onClick={onReplace}>
        {t('keys.replace')}
      </Button>
    </Box>
  );
}
