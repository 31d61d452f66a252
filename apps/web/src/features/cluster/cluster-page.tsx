import { Alert, Box, Button, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { errorText } from '../../lib/error-text';
import { useCurrentUser } from '../../lib/session';
import { useNodes } from './api/cluster-api';
import { NodesTable } from './components/nodes-table';

/** /cluster (admin): the server nodes sharing the database, refreshed at the heartbeat pace. */
export function ClusterPage() {
  const { t } = useTranslation();
  const me = useCurrentUser();
  const nodes = useNodes(me.admin);
  if (!me.admin) return null;

  // A failed refetch keeps the last answer on screen under the error; a failed first load shows the error alone.
  let body: ReactNode = null;
  if (nodes.data === undefined) body = nodes.isError ? null : <NodesTable nodes={null} receivedAt={0} />;
  else if (nodes.data.length === 0) body = <EmptyState title={t('cluster.empty')} hint={t('cluster.emptyHint')} />;
  else body = <NodesTable nodes={nodes.data} receivedAt={nodes.dataUpdatedAt} />;

  return (
    <Box>
      <PageHeader title={t('cluster.title')} />
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2, maxWidth: 800 }}>
        <Trans
          i18nKey="cluster.intro"
          components={{ code: <Box component="code" sx={{ fontFamily: 'monospace' }} /> }}
        />
      </Typography>
      {nodes.isError ? (
        <Alert
          severity="error"
          sx={{ mb: 2 }}
          action={
            <Button color="inherit" size="small" onClick={() => void nodes.refetch()} disabled={nodes.isFetching}>
              {t('cluster.retry')}
            </Button>
          }
        >
          {errorText(nodes.error)}
        </Alert>
      ) : null}
      {body}
    </Box>
  );
}
