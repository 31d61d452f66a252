import type { ProjectUser } from '@gantry/contracts';
import { lazy, Suspense } from 'react';
import { RouteFallback } from './route-fallback';

// recharts is large: it loads when a stats tab opens, not with the dashboard or template page.
const StatsChartView = lazy(async () => ({ default: (await import('./stats-chart-view')).StatsChartView }));

/** Tasks per day by outcome, for a project or one template; past week by default, with a user filter. */
export function StatsChart(props: { baseUrl: string; users: ProjectUser[] }) {
  return (
    <Suspense fallback={<RouteFallback />}>
      <StatsChartView {...props} />
    </Suspense>
  );
}
