import {
  Link as MuiLink,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TableContainer,
  Typography,
  Box,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { paths } from '../../lib/paths';
import { notificationQueries } from './api/notifications-api';
import { EventChips } from './components/rule-parts';

/** On a template's page: the notification rules that apply to it (the project's and its own), with their destinations. */
export function TemplateNotifications({ projectId, templateId }: { projectId: number; templateId: number }) {
  const { t } = useTranslation();
  const rules = useQuery(notificationQueries.templateRules(projectId, templateId)).data ?? [];
  const destinations = useQuery(notificationQueries.destinations({ projectId })).data ?? [];
  return (
    <Paper variant="outlined" sx={{ p: 2, maxWidth: 800 }} data-testid="template-notifications">
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1, alignItems: 'baseline', mb: 1 }}>
        <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, flexGrow: 1 }}>
          {t('notifications.title')}
        </Typography>
        <MuiLink component={Link} to={paths.notifications(projectId)}>
          {t('notifications.manage')}
        </MuiLink>
      </Box>
      {rules.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {t('notifications.noTemplateRules')}
        </Typography>
      ) : (
        <TableContainer tabIndex={0} role="region" aria-label={t('notifications.templateRules')}>
          <Table size="small" aria-label={t('notifications.templateRules')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('notifications.destination')}</TableCell>
                <TableCell>{t('notifications.kind')}</TableCell>
                <TableCell>{t('notifications.events')}</TableCell>
                <TableCell>{t('notifications.scope')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rules.map((r) => {
                const d = destinations.find((x) => x.id === r.destination_id);
                return (
                  <TableRow key={r.id}>
                    <TableCell>{d?.name ?? `#${r.destination_id}`}</TableCell>
                    <TableCell>{d ? t(`notifications.kinds.${d.kind}`) : ''}</TableCell>
                    <TableCell sx={{ minWidth: 140 }}>
                      <EventChips rule={r} />
                    </TableCell>
                    <TableCell>
                      {t(
                        r.template_id
                          ? 'notifications.thisTemplate'
                          : r.project_id === null
                            ? 'notifications.scopeGlobal'
                            : 'notifications.scopeProject',
                      )}
                    </TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        </TableContainer>
      )}
    </Paper>
  );
}
