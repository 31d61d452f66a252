import { Box, Breadcrumbs, Link } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useParams } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { PageSkeleton, QueryStates } from '../../components/query-states';
import { useProjectId } from '../../lib/project-access';
import { approvalQuery } from './api/approvals-api';
import { approvalsInboxPath, projectApprovalsPath } from './approval-paths';
import { ApprovalDetail } from './components/approval-detail';

/** /project/{id}/approvals/{aid}: one approval, where its approvers decide. */
export function ApprovalPage() {
  const { t } = useTranslation();
  const projectId = useProjectId();
  const id = Number(useParams().id);
  // Read again now and then while pending: other approvers' votes (and a timeout) show up.
  const query = useQuery({
    ...approvalQuery(projectId, id),
    refetchInterval: (q) => (q.state.data?.status === 'pending' ? 10_000 : false),
  });
  return (
    <>
      <Breadcrumbs aria-label={t('approvals.breadcrumbs')} sx={{ mb: 1 }}>
        <Link component={RouterLink} to={approvalsInboxPath}>
          {t('approvals.inboxTitle')}
        </Link>
        <Link component={RouterLink} to={projectApprovalsPath(projectId)}>
          {t('approvals.projectTitle')}
        </Link>
      </Breadcrumbs>
      <QueryStates
        query={query}
        loading={<PageSkeleton />}
        notFound={<EmptyState heading title={t('approvals.notFound')} />}
      >
        {query.data ? (
          <Box>
            <PageHeader title={query.data.title} />
            <ApprovalDetail approval={query.data} />
          </Box>
        ) : null}
      </QueryStates>
    </>
  );
}
