import { Alert } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/page-header';
import { infoQuery, useCurrentUser } from '../../lib/session';
import { RunnersList } from './components/runners-list';

/** /runners (admin): every runner, paged at 20; new ones here are global. */
export function RunnersPage() {
  const { t } = useTranslation();
  const me = useCurrentUser();
  const info = useQuery(infoQuery).data;
  if (!me.admin) return null;
  const notice =
    info && !info.use_remote_runner ? (
      <Alert severity="info" variant="outlined" sx={{ mb: 2 }}>
        {t('runners.remoteOff')}
      </Alert>
    ) : null;
  return (
    <RunnersList
      projectId={null}
      title={(actions) => (
        <>
          <PageHeader title={t('runners.title')} actions={actions} />
          {notice}
        </>
      )}
    />
  );
}

/** The project dashboard's Runners tab: the project's own runners (tag required). */
export function ProjectRunners({ projectId }: { projectId: number }) {
  const { t } = useTranslation();
  const info = useQuery(infoQuery).data;
  if (info && !info.premium_features.project_runners) {
    return <Alert severity="info">{t('runners.premiumOnly')}</Alert>;
  }
  return <RunnersList projectId={projectId} title={(actions) => <PageHeader title={t('runners.projectTitle')} actions={actions} />} />;
}
