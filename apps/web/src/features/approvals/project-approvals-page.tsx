import HowToVoteIcon from '@mui/icons-material/HowToVoteOutlined';
import { Button, ToggleButton, ToggleButtonGroup } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { QueryStates } from '../../components/query-states';
import { useProjectId } from '../../lib/project-access';
import { projectApprovalsQuery, type ApprovalFilter } from './api/approvals-api';
import { approvalsInboxPath } from './approval-paths';
import { ApprovalsTable } from './components/approvals-table';

/** /project/{id}/approvals: the project's approvals, pending or all (?status=all), newest first. */
export function ProjectApprovalsPage() {
  const { t } = useTranslation();
  const projectId = useProjectId();
  const [params, setParams] = useSearchParams();
  const filter: ApprovalFilter = params.get('status') === 'all' ? 'all' : 'pending';
  const query = useQuery(projectApprovalsQuery(projectId, filter));
  return (
    <>
      <PageHeader
        title={t('approvals.projectTitle')}
        actions={
          <Button component={RouterLink} to={approvalsInboxPath} variant="outlined">
            {t('approvals.inboxTitle')}
          </Button>
        }
      />
      <ToggleButtonGroup
        exclusive
        size="small"
        value={filter}
        onChange={(_e, v: ApprovalFilter | null) =>
          v && setParams(v === 'all' ? { status: 'all' } : {}, { replace: true })
        }
        aria-label={t('approvals.filter')}
        // MUI's unselected grey misses 4.5:1 on the page's background: the text colour keeps it readable.
        sx={{ mb: 2, '& .MuiToggleButton-root:not(.Mui-selected)': { color: 'text.primary' } }}
      >
        <ToggleButton value="pending">{t('approvals.filterPending')}</ToggleButton>
        <ToggleButton value="all">{t('approvals.filterAll')}</ToggleButton>
      </ToggleButtonGroup>
      <QueryStates query={query}>
        {query.data?.length ? (
          <ApprovalsTable approvals={query.data} label={t('approvals.projectTitle')} />
        ) : (
          <EmptyState
            icon={<HowToVoteIcon fontSize="large" />}
            title={filter === 'all' ? t('approvals.projectEmpty') : t('approvals.projectNonePending')}
          />
        )}
      </QueryStates>
    </>
  );
}
