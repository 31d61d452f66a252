import { Navigate, Route, Routes, useLocation } from 'react-router';
import { LoginPage } from '../features/auth/login-page';
import { NewProjectPage } from '../features/projects/new-project-page';
import { ProjectDashboard } from '../features/projects/project-dashboard';
import { TokensPage } from '../features/tokens/tokens-page';
import { UsersPage } from '../features/users/users-page';
import { EnvironmentsPage } from '../features/environments/environments-page';
import { InventoriesPage } from '../features/inventories/inventories-page';
import { KeysPage } from '../features/keys/keys-page';
import { RepositoriesPage } from '../features/repositories/repositories-page';
import { TeamPage } from '../features/team/team-page';
import { NotFound } from './not-found';
import { RootRedirect } from './root-redirect';
import { SessionGate } from './session-gate';
import { AppShell } from './shell/app-shell';
import { ProjectRoute } from './project-route';

export function AppRoutes() {
  return (
    <Routes>
      <Route path="/auth/login" element={<LoginPage />} />
      <Route element={<SessionGate />}>
        <Route element={<AppShell />}>
          <Route index element={<RootRedirect />} />
          <Route path="project" element={<RootRedirect />} />
          <Route path="project/new" element={<NewProjectPage />} />
          <Route path="project/:projectId" element={<ProjectRoute />}>
            <Route index element={<ProjectIndexRedirect />} />
            <Route path="history" element={<ProjectDashboard tab="history" />} />
            <Route path="settings" element={<ProjectDashboard tab="settings" />} />
            <Route path="activity" element={<ProjectDashboard tab="activity" />} />
            <Route path="keys/:id?" element={<KeysPage />} />
            <Route path="repositories/:id?" element={<RepositoriesPage />} />
            <Route path="inventory/:id?" element={<InventoriesPage />} />
            <Route path="environment/:id?" element={<EnvironmentsPage />} />
            <Route path="team" element={<TeamPage />} />
          </Route>
          <Route path="users" element={<UsersPage />} />
          <Route path="tokens" element={<TokensPage />} />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Route>
    </Routes>
  );
}

/** /project/{id} opens the dashboard, keeping the query string. */
function ProjectIndexRedirect() {
  const { search } = useLocation();
  return <Navigate to={`history${search}`} replace />;
}
