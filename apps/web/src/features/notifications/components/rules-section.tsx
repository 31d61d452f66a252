import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import EditIcon from '@mui/icons-material/EditOutlined';
import {
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
} from '@mui/material';
import type { NotificationRule } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../../components/empty-state';
import { QueryStates } from '../../../components/query-states';
import { useConfirmDelete } from '../../../components/use-confirm-delete';
import { notificationQueries, useDeleteNotification, type NotificationScope } from '../api/notifications-api';
import { RuleDialog } from './rule-dialog';
import { EventChips, ruleFilters } from './rule-parts';
import { scopeName, useScopeChoices } from './scope-choices';

/** The rules table: destination, events, what it covers and its filters; add, edit and delete. */
export function RulesSection({ scope, canManage }: { scope: NotificationScope; canManage: boolean }) {
  const { t } = useTranslation();
  const list = useQuery(notificationQueries.rules(scope));
  const destinations = useQuery(notificationQueries.destinations(scope)).data ?? [];
  const { templates, schedules } = useScopeChoices(scope);
  const [editing, setEditing] = useState<NotificationRule | 'new' | null>(null);
  const remove = useDeleteNotification(scope, 'rules');
  const destinationName = (r: NotificationRule) =>
    destinations.find((d) => d.id === r.destination_id)?.name ?? `#${r.destination_id}`;
  /** Words for the rule's row: its destination and what it covers. */
  const describe = (r: NotificationRule) => {
    const s = scopeName(r, templates, schedules);
    const covers = s.kind
      ? t(`notifications.scopeOf.${s.kind}`, { name: s.name })
      : t(scope.projectId === null ? 'notifications.scopeGlobal' : 'notifications.scopeProject');
    return { destination: destinationName(r), covers };
  };
  const del = useConfirmDelete<{ id: number; name: string }>({
    object: t('notifications.ruleObject'),
    remove: (r) => remove.mutateAsync(r.id),
  });
  const rows = list.data ?? [];
  const add =
    canManage && destinations.length ? (
      <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing('new')}>
        {t('notifications.newRule')}
      </Button>
    ) : null;
  return (
    <Stack spacing={2}>
      {rows.length ? <Box>{add}</Box> : null}
      {rows.length ? (
        <Paper variant="outlined">
          {/* Scrolls sideways on a phone: focusable, so the keyboard can scroll it too. */}
          <TableContainer tabIndex={0} role="region" aria-label={t('notifications.rules')}>
            <Table size="small" aria-label={t('notifications.rules')} data-testid="rules-table">
              <TableHead>
                <TableRow>
                  <TableCell sx={{ fontWeight: 600 }}>{t('notifications.destination')}</TableCell>
                  <TableCell sx={{ fontWeight: 600 }}>{t('notifications.events')}</TableCell>
                  <TableCell sx={{ fontWeight: 600 }}>{t('notifications.scope')}</TableCell>
                  <TableCell sx={{ fontWeight: 600 }}>{t('notifications.filters')}</TableCell>
                  {canManage ? (
                    <TableCell align="right" sx={{ fontWeight: 600 }}>
                      {t('common.actions')}
                    </TableCell>
                  ) : null}
                </TableRow>
              </TableHead>
              <TableBody>
                {rows.map((r) => {
                  const d = describe(r);
                  const name = `${d.destination} · ${d.covers}`;
                  return (
                    <TableRow key={r.id} hover>
                      <TableCell sx={{ fontWeight: 500 }}>{d.destination}</TableCell>
                      <TableCell sx={{ minWidth: 160 }}>
                        <EventChips rule={r} />
                      </TableCell>
                      <TableCell>{d.covers}</TableCell>
                      <TableCell>{ruleFilters(r, t).join(' · ') || '—'}</TableCell>
                      {canManage ? (
                        <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                          <IconButton
                            size="small"
                            aria-label={t('common.editNamed', { name })}
                            onClick={() => setEditing(r)}
                          >
                            <EditIcon fontSize="small" />
                          </IconButton>
                          <IconButton
                            size="small"
                            aria-label={t('common.deleteNamed', { name })}
                            onClick={() => del.request({ id: r.id, name })}
                          >
                            <DeleteIcon fontSize="small" />
                          </IconButton>
                        </TableCell>
                      ) : null}
                    </TableRow>
                  );
                })}
              </TableBody>
            </Table>
          </TableContainer>
        </Paper>
      ) : (
        <QueryStates
          query={list}
          empty={
            <EmptyState
              title={t('notifications.noRules')}
              hint={t(destinations.length ? 'notifications.noRulesHint' : 'notifications.noRulesNoDestinations')}
              action={add}
            />
          }
        />
      )}
      {editing ? (
        <RuleDialog
          scope={scope}
          item={editing === 'new' ? null : editing}
          destinations={destinations}
          onClose={() => setEditing(null)}
        />
      ) : null}
      {del.dialog}
    </Stack>
  );
}
