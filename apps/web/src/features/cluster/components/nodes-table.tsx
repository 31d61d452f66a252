import { Box, Chip, Skeleton, Typography } from '@mui/material';
import type { ClusterNode } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';
import { PagedTable, type Column } from '../../../components/paged-table';
import { formatDateTime } from '../../../lib/format';
import { HeartbeatAge } from './heartbeat-age';

const SKELETON_ROWS = [0, 1, 2];

/**
 * The nodes, one row each; `nodes` null shows the same columns with placeholder rows while the
 * first answer loads.
 */
export function NodesTable({
  nodes,
  receivedAt,
}: {
  nodes: ClusterNode[] | null;
  /** When `nodes` arrived (the query's `dataUpdatedAt`), for the heartbeat ages. */
  receivedAt: number;
}) {
  const { t } = useTranslation();
  const columns: Column<ClusterNode>[] = [
    {
      key: 'id',
      header: t('cluster.node'),
      render: (n) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
          <Typography variant="body2" sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>
            {n.id}
          </Typography>
          {n.self ? <Chip size="small" color="primary" variant="outlined" label={t('cluster.thisNode')} /> : null}
        </Box>
      ),
    },
    {
      key: 'address',
      header: t('cluster.address'),
      render: (n) => (
        <Typography variant="body2" sx={{ fontFamily: 'monospace' }}>
          {n.address}
        </Typography>
      ),
    },
    { key: 'version', header: t('cluster.version'), render: (n) => n.version },
    { key: 'started', header: t('cluster.started'), render: (n) => formatDateTime(n.started) },
    {
      key: 'heartbeat',
      header: t('cluster.lastHeartbeat'),
      render: (n) => <HeartbeatAge ageSeconds={n.heartbeat_age_seconds} receivedAt={receivedAt} />,
    },
    { key: 'tasks', header: t('cluster.runningTasks'), align: 'right', render: (n) => n.running_tasks },
  ];

  if (nodes === null) {
    const placeholders = columns.map<Column<number>>(({ key, header, align }) => ({
      key,
      header,
      align,
      render: () => <Skeleton variant="text" />,
    }));
    return (
      <Box aria-busy="true">
        <PagedTable
          rows={SKELETON_ROWS}
          columns={placeholders}
          rowKey={(i) => i}
          paged={false}
          label={t('cluster.loading')}
        />
      </Box>
    );
  }
  return <PagedTable rows={nodes} columns={columns} rowKey={(n) => n.id} label={t('cluster.nodes')} />;
}
