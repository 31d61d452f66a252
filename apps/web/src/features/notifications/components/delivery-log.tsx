import RefreshIcon from '@mui/icons-material/Refresh';
import {
  Box,
  Button,
  MenuItem,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { NOTIFICATION_EVENTS, NOTIFICATION_TEST_EVENT } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../../components/empty-state';
import { QueryStates } from '../../../components/query-states';
import { formatDateTime } from '../../../lib/format';
import { DELIVERY_LOG_LIMIT, notificationQueries, type NotificationScope } from '../api/notifications-api';
import { DeliveryStatus } from './delivery-status';

/** The delivery log of one destination (chosen above it): its latest deliveries, newest first. */
export function DeliveryLog({ scope }: { scope: NotificationScope }) {
  const { t } = useTranslation();
  const destinations = useQuery(notificationQueries.destinations(scope));
  const [chosen, setChosen] = useState<number | ''>('');
  // The first destination until one is chosen, so the log is never an empty page for no reason.
  const id = chosen === '' ? (destinations.data?.[0]?.id ?? null) : chosen;
  const log = useQuery({ ...notificationQueries.deliveries(scope, id ?? 0), enabled: id !== null });
  const eventName = (e: string) =>
    e === NOTIFICATION_TEST_EVENT
      ? t('notifications.testEvent')
      : (NOTIFICATION_EVENTS as readonly string[]).includes(e)
        ? t(`notifications.eventNames.${e}`)
        : e;
  if (!destinations.data?.length)
    return <QueryStates query={destinations} empty={<EmptyState title={t('notifications.noDestinations')} />} />;
  const rows = log.data ?? [];
  return (
    <Stack spacing={2}>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, alignItems: 'center' }}>
        <TextField
          select
          size="small"
          label={t('notifications.destination')}
          value={id ?? ''}
          onChange={(e) => setChosen(Number(e.target.value))}
          sx={{ minWidth: 220, maxWidth: '100%' }}
        >
          {destinations.data.map((d) => (
            <MenuItem key={d.id} value={d.id}>
              {d.name}
            </MenuItem>
          ))}
        </TextField>
        <Button startIcon={<RefreshIcon />} onClick={() => void log.refetch()} disabled={log.isFetching}>
          {t('common.refresh')}
        </Button>
        <Typography variant="body2" color="text.secondary">
          {t('notifications.logLimit', { limit: DELIVERY_LOG_LIMIT })}
        </Typography>
      </Box>
      {rows.length ? (
        <Paper variant="outlined">
          {/* Scrolls sideways on a phone: focusable, so the keyboard can scroll it too. */}
          <TableContainer tabIndex={0} role="region" aria-label={t('notifications.deliveryLog')}>
            <Table size="small" aria-label={t('notifications.deliveryLog')} data-testid="delivery-log">
              <TableHead>
                <TableRow>
                  {['time', 'event', 'subject', 'status', 'attempts', 'httpStatusColumn', 'error'].map((h) => (
                    <TableCell key={h} sx={{ fontWeight: 600, whiteSpace: 'nowrap' }}>
                      {t(`notifications.log.${h}`)}
                    </TableCell>
                  ))}
                </TableRow>
              </TableHead>
              <TableBody>
                {rows.map((d) => (
                  <TableRow key={d.id}>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(d.last_attempt ?? d.created)}</TableCell>
                    <TableCell>{eventName(d.event)}</TableCell>
                    <TableCell sx={{ minWidth: 160 }}>{d.subject}</TableCell>
                    <TableCell>
                      <DeliveryStatus status={d.status} />
                    </TableCell>
                    <TableCell>{d.attempts}</TableCell>
                    <TableCell>{d.http_status ?? '—'}</TableCell>
                    <TableCell sx={{ minWidth: 160, overflowWrap: 'anywhere' }}>
                      {d.error ?? ''}
                      {d.status === 'pending' && d.next_attempt ? (
                        <Typography variant="caption" color="text.secondary" component="div">
                          {t('notifications.nextAttempt', { time: formatDateTime(d.next_attempt) })}
                        </Typography>
                      ) : null}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        </Paper>
      ) : (
        <QueryStates query={log} empty={<EmptyState title={t('notifications.noDeliveries')} />} />
      )}
    </Stack>
  );
}
