import type { Project } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { RouteFallback } from '../../components/route-fallback';
import { StatsChart } from '../../components/stats-chart';
import { projectQueries } from '../../lib/project-queries';

// The dashboard opens on its history: the other tabs' code (forms, the runners' table, the
// activity list) loads when one of them opens, so a phone shows the history sooner.
const ProjectSettings = lazy(async () => ({ default: (await import('./components/project-settings')).ProjectSettings }));
const ProjectRunners = lazy(async () => ({ default: (await import('../runners/runners-page')).ProjectRunners }));
const ActivityList = lazy(async () => ({ default: (await import('../activity/activity-list')).ActivityList }));

export type OtherDashboardTab = 'settings' | 'activity' | 'stats' | 'runners';

/** One of the dashboard's tabs other than the history, with a spinner while its code loads. */
export function DashboardTab({ tab, project }: { tab: OtherDashboardTab; project: Project }) {
  return (
    <Suspense fallback={<RouteFallback />}>
      {tab === 'activity' ? <ActivityList projectId={project.id} /> : null}
      {tab === 'stats' ? <ProjectStats projectId={project.id} /> : null}
      {tab === 'settings' ? <ProjectSettings project={project} /> : null}
      {tab === 'runners' ? <ProjectRunners projectId={project.id} /> : null}
    </Suspense>
  );
}

/** Tasks per day, filterable by the project's members (asked for only here). */
function ProjectStats({ projectId }: { projectId: number }) {
  const team = useQuery(projectQueries.team(projectId)).data ?? [];
  return <StatsChart baseUrl={`/project/${projectId}`} users={team} />;
}
