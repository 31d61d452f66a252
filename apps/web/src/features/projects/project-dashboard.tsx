import { Box } from '@mui/material';
import { Permission, can, type Project } from '@gantry/contracts';
import { useDeferredValue } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { LinkTabs } from '../../components/link-tabs';
import { PageHeader } from '../../components/page-header';
import { paths } from '../../lib/paths';
import { useProjects, useRole } from '../../lib/session';
import { ProjectHistory } from './components/project-history';
import { RoleNotice } from './components/role-notice';
import { DashboardTab } from './dashboard-tabs';

export type DashboardTab = 'history' | 'settings' | 'activity' | 'stats' | 'runners';

/** /project/{id}/history and its sibling tabs. */
export function ProjectDashboard({ tab }: { tab: DashboardTab }) {
  const { t } = useTranslation();
  const id = Number(useParams().projectId);
  const project = useProjects().find((p) => p.id === id);
  const role = useRole(id).data;
  // The header shows in the first frame; the tab's content (a table, a form) renders right after,
  // so a phone paints the page's title without waiting for the heaviest part.
  const bodyShown = useDeferredValue(true, false);
  if (!project) return null;
  const canUpdate = role ? can(role.permissions, Permission.updateProject) : false;
  const canRun = role ? can(role.permissions, Permission.runProjectTasks) : false;
  return (
    <Box>
      <PageHeader title={project.name} />
      <LinkTabs
        value={tab}
        tabs={[
          { value: 'history', label: t('projects.history'), to: paths.history(id) },
          ...(project.type === ''
            ? [{ value: 'stats', label: t('projects.stats'), to: paths.projectSection(id, 'stats') }]
            : []),
          { value: 'activity', label: t('projects.activity'), to: paths.activity(id) },
          ...(canUpdate ? [{ value: 'settings', label: t('projects.settings'), to: paths.settings(id) }] : []),
          ...(canUpdate && project.type === ''
            ? [{ value: 'runners', label: t('projects.runners'), to: paths.projectSection(id, 'runners') }]
            : []),
        ]}
      />
      {role ? <RoleNotice key={id} projectId={id} canRun={canRun} /> : null}
      {bodyShown ? <DashboardBody tab={tab} project={project} canUpdate={canUpdate} /> : null}
    </Box>
  );
}

/** What the tab shows below the header. */
function DashboardBody({ tab, project, canUpdate }: { tab: DashboardTab; project: Project; canUpdate: boolean }) {
  const id = project.id;
  return (
    <>
      {tab === 'history' ? <ProjectHistory projectId={id} /> : null}
      {tab === 'activity' ||
      tab === 'stats' ||
      (tab === 'settings' && canUpdate) ||
      (tab === 'runners' && canUpdate && project.type === '') ? (
        <DashboardTab tab={tab} project={project} />
      ) : null}
    </>
  );
}
