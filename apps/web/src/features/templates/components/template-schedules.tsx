import {
  Link as MuiLink,
  Paper,
  Switch,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import type { Schedule } from '@gantry/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useSnackbar } from '../../../components/snackbar';
import { api } from '../../../lib/api-client';
import { errorText } from '../../../lib/error-text';

/** The template's own schedules on its page: name, cron (UTC) and the active switch. */
export function TemplateSchedules({
  projectId,
  templateId,
  canManage,
}: {
  projectId: number;
  templateId: number;
  canManage: boolean;
}) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const snackbar = useSnackbar();
  const queryKey = ['project', projectId, 'schedules', 'template', templateId];
  const rows =
    useQuery({
      queryKey,
      queryFn: () => api.get<Schedule[]>(`/project/${projectId}/templates/${templateId}/schedules`),
    }).data ?? [];
  const toggle = useMutation({
    mutationFn: (s: Schedule) => api.put(`/project/${projectId}/schedules/${s.id}/active`, { active: !s.active }),
    // The schedule list shares the prefix, so both views refresh.
    onSuccess: () => qc.invalidateQueries({ queryKey: ['project', projectId, 'schedules'] }),
    onError: (e) => snackbar.error(errorText(e)),
  });
  return (
    <Paper variant="outlined" sx={{ p: 2, maxWidth: 800 }} data-testid="template-schedules">
      <Typography variant="subtitle1" sx={{ fontWeight: 600, mb: 1 }}>
        {t('templates.schedules')}
      </Typography>
      {rows.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {t('templates.noSchedules')}
        </Typography>
      ) : (
        <Table size="small">
          <TableHead>
            <TableRow>
              <TableCell>{t('schedules.active')}</TableCell>
              <TableCell>{t('common.name')}</TableCell>
              <TableCell>{t('schedules.cronUtc')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.map((s) => (
              <TableRow key={s.id}>
                <TableCell>
                  <Switch
                    size="small"
                    checked={s.active}
                    disabled={!canManage}
                    onChange={() => toggle.mutate(s)}
                    slotProps={{ input: { 'aria-label': t('schedules.activeNamed', { name: s.name }) } }}
                  />
                </TableCell>
                <TableCell>
                  <MuiLink component={Link} to={`/project/${projectId}/schedules`}>
                    {s.name}
                  </MuiLink>
                </TableCell>
                <TableCell>
                  <code>{s.cron_format}</code>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </Paper>
  );
}
