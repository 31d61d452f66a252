import HowToVoteIcon from '@mui/icons-material/HowToVoteOutlined';
import { Button, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { QueryStates } from '../../components/query-states';
import { useProjects } from '../../lib/session';
import { storage, StorageKeys } from '../../lib/storage';
import { inboxQuery } from './api/approvals-api';
import { projectApprovalsPath } from './approval-paths';
import { ApprovalsTable } from './components/approvals-table';

/** /approvals: what waits for the signed-in user's decision, across their projects. */
export function ApprovalsInboxPage() {
  const { t } = useTranslation();
  const query = useQuery(inboxQuery);
  // The last visited project's full list (decided ones too) is one click away.
  const lastProject = useProjects().find((p) => p.id === Number(storage.get(StorageKeys.projectId)));
  return (
    <>
      <PageHeader
        title={t('approvals.inboxTitle')}
        actions={
          lastProject ? (
            <Button component={RouterLink} to={projectApprovalsPath(lastProject.id)} variant="outlined">
              {t('approvals.projectHistory', { project: lastProject.name })}
            </Button>
          ) : null
        }
      />
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        {t('approvals.inboxHint')}
      </Typography>
      <QueryStates query={query}>
        {query.data?.length ? (
          <ApprovalsTable approvals={query.data} showProject label={t('approvals.inboxTitle')} />
        ) : (
          <EmptyState
            icon={<HowToVoteIcon fontSize="large" />}
            title={t('approvals.inboxEmpty')}
            hint={t('approvals.inboxEmptyHint')}
          />
        )}
      </QueryStates>
    </>
  );
}
