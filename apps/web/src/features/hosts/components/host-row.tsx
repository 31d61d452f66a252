import ExpandLessIcon from '@mui/icons-material/ExpandLess';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import {
  Box,
  Chip,
  Collapse,
  IconButton,
  Link as MuiLink,
  Stack,
  TableCell,
  TableRow,
  Typography,
} from '@mui/material';
import type { Host } from '@gantry/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { TaskStatus } from '../../../components/tasks/task-status';
import { formatDateTime } from '../../../lib/format';
import { paths } from '../../../lib/paths';

const CHIP_COLOR: Record<string, 'success' | 'error' | 'warning' | 'default'> = {
  success: 'success',
  error: 'error',
  stopped: 'warning',
};

/** One host: name, groups, inventory and its last results; expands to its variables and last tasks. */
export function HostRow({ projectId, host }: { projectId: number; host: Host }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const wide = { display: { xs: 'none', md: 'table-cell' } };
  return (
    <>
      <TableRow hover sx={{ '& > td': { borderBottom: open ? 'unset' : undefined } }}>
        <TableCell padding="checkbox">
          <IconButton
            size="small"
            aria-label={t(open ? 'hosts.collapse' : 'hosts.expand', { name: host.name })}
            aria-expanded={open}
            onClick={() => setOpen(!open)}
          >
            {open ? <ExpandLessIcon /> : <ExpandMoreIcon />}
          </IconButton>
        </TableCell>
        <TableCell sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }}>{host.name}</TableCell>
        <TableCell sx={wide}>
          <Groups groups={host.groups} />
        </TableCell>
        <TableCell sx={wide}>{host.inventory_name}</TableCell>
        <TableCell>
          <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
            {host.last_tasks.length ? (
              host.last_tasks.map((r) => (
                <Chip
                  key={r.task_id}
                  size="small"
                  variant="outlined"
                  color={CHIP_COLOR[r.status] ?? 'default'}
                  label={`#${r.task_id}`}
                  title={t('hosts.resultTitle', {
                    template: r.template_name,
                    status: t(`taskStatus.${r.status}`, { defaultValue: r.status }),
                  })}
                  component={Link}
                  to={`${paths.history(projectId)}?t=${r.task_id}`}
                  clickable
                />
              ))
            ) : (
              <Typography variant="body2" color="text.secondary">
                {t('hosts.noTasks')}
              </Typography>
            )}
          </Stack>
        </TableCell>
      </TableRow>
      <TableRow>
        <TableCell colSpan={5} sx={{ py: 0 }}>
          <Collapse in={open} unmountOnExit>
            <Box
              sx={{
                py: 2,
                display: 'grid',
                gap: 2,
                gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: 'minmax(0, 1fr) minmax(0, 1fr)' },
              }}
            >
              <Box sx={{ display: { md: 'none' } }}>
                <Typography variant="subtitle2">{t('hosts.groups')}</Typography>
                <Groups groups={host.groups} />
                <Typography variant="subtitle2" sx={{ mt: 1 }}>
                  {t('hosts.inventory')}
                </Typography>
                <Typography variant="body2">{host.inventory_name}</Typography>
              </Box>
              <Box sx={{ minWidth: 0 }}>
                <Typography variant="subtitle2">{t('hosts.vars')}</Typography>
                {Object.keys(host.vars).length ? (
                  <Box
                    component="pre"
                    sx={{
                      m: 0,
                      p: 1,
                      bgcolor: 'action.hover',
                      borderRadius: 1,
                      fontSize: 13,
                      overflowX: 'auto',
                      maxHeight: 320,
                    }}
                  >
                    {JSON.stringify(host.vars, null, 2)}
                  </Box>
                ) : (
                  <Typography variant="body2" color="text.secondary">
                    {t('hosts.noVars')}
                  </Typography>
                )}
              </Box>
              <Box sx={{ minWidth: 0 }}>
                <Typography variant="subtitle2">{t('hosts.lastTasks')}</Typography>
                {host.last_tasks.length ? (
                  <Stack spacing={1}>
                    {host.last_tasks.map((r) => (
                      <Box key={r.task_id} sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 1 }}>
                        <MuiLink component={Link} to={`${paths.history(projectId)}?t=${r.task_id}`}>
                          #{r.task_id} {r.template_name}
                        </MuiLink>
                        <TaskStatus status={r.status} />
                        <Typography variant="body2" color="text.secondary">
                          {t('hosts.counts', r)} · {formatDateTime(r.created)}
                        </Typography>
                      </Box>
                    ))}
                    <MuiLink component={Link} to={`${paths.history(projectId)}?host=${encodeURIComponent(host.name)}`}>
                      {t('hosts.allTasks')}
                    </MuiLink>
                  </Stack>
                ) : (
                  <Typography variant="body2" color="text.secondary">
                    {t('hosts.noTasks')}
                  </Typography>
                )}
              </Box>
            </Box>
          </Collapse>
        </TableCell>
      </TableRow>
    </>
  );
}

function Groups({ groups }: { groups: string[] }) {
  return (
    <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
      {groups.map((g) => (
        <Chip key={g} size="small" label={g} />
      ))}
    </Stack>
  );
}
