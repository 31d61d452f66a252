import { Chip } from '@mui/material';
import { NOTIFICATION_DELIVERY_STATUSES } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';

const COLOR = { pending: 'default', sent: 'success', failed: 'error' } as const;
const known = (s: string): s is (typeof NOTIFICATION_DELIVERY_STATUSES)[number] =>
  (NOTIFICATION_DELIVERY_STATUSES as readonly string[]).includes(s);

/** A delivery's status as a chip, in words and colour (the words carry it; the colour only helps). */
export function DeliveryStatus({ status }: { status: string }) {
  const { t } = useTranslation();
  if (!known(status)) return <Chip size="small" variant="outlined" label={status} />;
  return (
    <Chip
      size="small"
      variant="outlined"
      color={COLOR[status]}
      label={t(`notifications.deliveryStatus.${status}`)}
      data-status={status}
    />
  );
}
