import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import EditIcon from '@mui/icons-material/EditOutlined';
import SendIcon from '@mui/icons-material/SendOutlined';
import {
  Alert,
  AlertTitle,
  Box,
  Button,
  IconButton,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Tooltip,
  Typography,
} from '@mui/material';
import type { NotificationDestination, NotificationTestResult } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../../components/empty-state';
import { QueryStates } from '../../../components/query-states';
import { useConfirmDelete } from '../../../components/use-confirm-delete';
import { errorText } from '../../../lib/error-text';
import { formatDateTime } from '../../../lib/format';
import {
  notificationQueries,
  useDeleteNotification,
  useTestDestination,
  type NotificationScope,
} from '../api/notifications-api';
import { DeliveryStatus } from './delivery-status';
import { DestinationDialog } from './destination-dialog';

/** What the last "Send test" of a destination answered (or why it could not be sent). */
type TestOutcome = { name: string } & ({ result: NotificationTestResult } | { failure: string });

/** The destinations table (name, kind, target, last delivery, active) with Send test, edit and delete. */
export function DestinationsSection({ scope, canManage }: { scope: NotificationScope; canManage: boolean }) {
  const { t } = useTranslation();
  const list = useQuery(notificationQueries.destinations(scope));
  const rows = list.data ?? [];
  const [editing, setEditing] = useState<NotificationDestination | 'new' | null>(null);
  const [outcome, setOutcome] = useState<TestOutcome | null>(null);
  const test = useTestDestination(scope);
  const remove = useDeleteNotification(scope, 'destinations');
  const del = useConfirmDelete<NotificationDestination>({
    object: t('notifications.destinationObject'),
    remove: (d) => remove.mutateAsync(d.id),
  });
  const sendTest = (d: NotificationDestination) => {
    setOutcome(null);
    test.mutate(d.id, {
      onSuccess: (result) => setOutcome({ name: d.name, result }),
      onError: (e) => setOutcome({ name: d.name, failure: errorText(e) }),
    });
  };
  const add = canManage ? (
    <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing('new')}>
      {t('notifications.newDestination')}
    </Button>
  ) : null;
  return (
    <Stack spacing={2}>
      {rows.length ? <Box>{add}</Box> : null}
      {outcome ? <TestOutcomeAlert outcome={outcome} onClose={() => setOutcome(null)} /> : null}
      {rows.length ? (
        <Paper variant="outlined">
          {/* Scrolls sideways on a phone: focusable, so the keyboard can scroll it too. */}
          <TableContainer tabIndex={0} role="region" aria-label={t('notifications.destinations')}>
            <Table size="small" aria-label={t('notifications.destinations')} data-testid="destinations-table">
              <TableHead>
                <TableRow>
                  <TableCell sx={{ fontWeight: 600 }}>{t('common.name')}</TableCell>
                  <TableCell sx={{ fontWeight: 600 }}>{t('notifications.kind')}</TableCell>
                  <TableCell sx={{ fontWeight: 600 }}>{t('notifications.target')}</TableCell>
                  <TableCell sx={{ fontWeight: 600 }}>{t('notifications.lastDelivery')}</TableCell>
                  <TableCell sx={{ fontWeight: 600 }}>{t('notifications.active')}</TableCell>
                  {/* Sending a test, like any change, is for those who may update the project. */}
                  {canManage ? (
                    <TableCell align="right" sx={{ fontWeight: 600 }}>
                      {t('common.actions')}
                    </TableCell>
                  ) : null}
                </TableRow>
              </TableHead>
              <TableBody>
                {rows.map((d) => (
                  <TableRow key={d.id} hover>
                    <TableCell sx={{ fontWeight: 500 }}>{d.name}</TableCell>
                    <TableCell>{t(`notifications.kinds.${d.kind}`)}</TableCell>
                    <TableCell sx={{ overflowWrap: 'anywhere', minWidth: 120 }}>{d.target}</TableCell>
                    <TableCell>
                      {d.last_delivery ? (
                        <Tooltip title={d.last_delivery.error ?? ''}>
                          <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', whiteSpace: 'nowrap' }}>
                            <DeliveryStatus status={d.last_delivery.status} />
                            <Typography variant="caption" color="text.secondary">
                              {formatDateTime(d.last_delivery.time)}
                            </Typography>
                          </Box>
                        </Tooltip>
                      ) : (
                        <Typography variant="body2" color="text.secondary">
                          {t('notifications.never')}
                        </Typography>
                      )}
                    </TableCell>
                    <TableCell>{d.active ? t('common.yes') : t('common.no')}</TableCell>
                    {canManage ? (
                      <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                        <Button
                          size="small"
                          startIcon={<SendIcon />}
                          disabled={test.isPending}
                          onClick={() => sendTest(d)}
                          aria-label={t('notifications.sendTestNamed', { name: d.name })}
                        >
                          {t('notifications.sendTest')}
                        </Button>
                        <IconButton
                          size="small"
                          aria-label={t('common.editNamed', { name: d.name })}
                          onClick={() => setEditing(d)}
                        >
                          <EditIcon fontSize="small" />
                        </IconButton>
                        <IconButton
                          size="small"
                          aria-label={t('common.deleteNamed', { name: d.name })}
                          onClick={() => del.request(d)}
                        >
                          <DeleteIcon fontSize="small" />
                        </IconButton>
                      </TableCell>
                    ) : null}
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        </Paper>
      ) : (
        <QueryStates
          query={list}
          empty={
            <EmptyState
              title={t('notifications.noDestinations')}
              hint={t('notifications.noDestinationsHint')}
              action={add}
            />
          }
        />
      )}
      {editing ? (
        <DestinationDialog scope={scope} item={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />
      ) : null}
      {del.dialog}
    </Stack>
  );
}

/** The receiver's answer to a test: its HTTP status and the start of its body, or the error. */
function TestOutcomeAlert({ outcome, onClose }: { outcome: TestOutcome; onClose(): void }) {
  const { t } = useTranslation();
  const ok = 'result' in outcome && outcome.result.ok;
  const detail =
    'failure' in outcome
      ? outcome.failure
      : [
          outcome.result.http_status !== null
            ? t('notifications.httpStatus', { status: outcome.result.http_status })
            : '',
          outcome.result.error ?? '',
          // Without an answer from the receiver, `response` repeats the error.
          outcome.result.response === outcome.result.error ? '' : outcome.result.response,
        ]
          .filter(Boolean)
          .join(' — ');
  return (
    <Alert
      severity={ok ? 'success' : 'error'}
      role="alert"
      onClose={onClose}
      sx={{ overflowWrap: 'anywhere' }}
      data-testid="test-outcome"
    >
      <AlertTitle>{t(ok ? 'notifications.testSent' : 'notifications.testFailed', { name: outcome.name })}</AlertTitle>
      {detail}
    </Alert>
  );
}
