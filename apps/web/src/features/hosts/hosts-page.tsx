import SearchIcon from '@mui/icons-material/Search';
import {
  Alert,
  Box,
  InputAdornment,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { QueryStates } from '../../components/query-states';
import { useProjectId } from '../../lib/project-access';
import { hostsQuery } from './api/hosts-api';
import { HostRow } from './components/host-row';

/**
 * /project/{id}/hosts: every host of the project's Ansible inventories (as Ansible lists them),
 * with their groups, inventory and last task results; a search box filters by name, group or inventory.
 */
export function HostsPage() {
  const { t } = useTranslation();
  const projectId = useProjectId();
  const query = useQuery(hostsQuery(projectId));
  const [search, setSearch] = useState('');
  const hosts = useMemo(() => {
    const q = search.trim().toLowerCase();
    const all = query.data?.hosts ?? [];
    if (!q) return all;
    return all.filter((h) => [h.name, h.inventory_name, ...h.groups].some((x) => x.toLowerCase().includes(q)));
  }, [query.data, search]);
  const wide = { display: { xs: 'none', md: 'table-cell' } };
  return (
    <Box>
      <PageHeader
        title={t('hosts.title')}
        actions={
          <TextField
            size="small"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder={t('hosts.search')}
            slotProps={{
              htmlInput: { 'aria-label': t('hosts.search') },
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <SearchIcon fontSize="small" />
                  </InputAdornment>
                ),
              },
            }}
            sx={{ width: { xs: '100%', sm: 280 } }}
          />
        }
      />
      {query.data?.errors.map((e) => (
        <Alert key={e.inventory_id} severity="warning" sx={{ mb: 1, overflowWrap: 'anywhere' }}>
          {t('hosts.listError', { name: e.inventory_name, error: e.error })}
        </Alert>
      ))}
      {query.data?.hosts.length ? (
        <TableContainer component={Paper} variant="outlined">
          <Table size="small" aria-label={t('hosts.title')} sx={{ tableLayout: 'auto' }}>
            <TableHead>
              <TableRow>
                <TableCell padding="checkbox" />
                <TableCell>{t('hosts.name')}</TableCell>
                <TableCell sx={wide}>{t('hosts.groups')}</TableCell>
                <TableCell sx={wide}>{t('hosts.inventory')}</TableCell>
                <TableCell>{t('hosts.lastStatus')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {hosts.map((h) => (
                <HostRow key={`${h.inventory_id}:${h.name}`} projectId={projectId} host={h} />
              ))}
            </TableBody>
          </Table>
          {!hosts.length ? <Box sx={{ p: 2, color: 'text.secondary' }}>{t('hosts.noMatch')}</Box> : null}
        </TableContainer>
      ) : (
        <QueryStates query={query} empty={<EmptyState title={t('hosts.none')} hint={t('hosts.noneHint')} />} />
      )}
    </Box>
  );
}
