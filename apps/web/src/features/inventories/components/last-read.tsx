import { Alert, Typography } from '@mui/material';
import type { Inventory } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/format';

/**
 * When a `file` or `url` inventory was last read, or why its last read failed (a task run or a
 * listing); nothing for the other types, whose text is stored in Gantry.
 */
export function LastRead({ inventory, compact = false }: { inventory: Inventory; compact?: boolean }) {
  const { t } = useTranslation();
  if (inventory.type !== 'file' && inventory.type !== 'url') return null;
  if (inventory.last_error) {
    if (compact)
      return (
        <Typography variant="body2" color="error" title={inventory.last_error} sx={{ overflowWrap: 'anywhere' }}>
          {t('inventories.lastErrorShort')}
        </Typography>
      );
    return (
      <Alert severity="warning" sx={{ overflowWrap: 'anywhere' }}>
        {t('inventories.lastError', { error: inventory.last_error })}
      </Alert>
    );
  }
  const text = inventory.last_read_at
    ? t('inventories.lastRead', { time: formatDateTime(inventory.last_read_at) })
    : t('inventories.neverRead');
  return (
    <Typography variant="body2" color="text.secondary">
      {text}
    </Typography>
  );
}
