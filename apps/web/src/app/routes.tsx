import { Navigate, Route, Routes, useLocation, useParams } from 'react-router';
import { LoginPage } from '../features/auth/login-page';
import { NewProjectPage } from '../features/projects/new-project-page';
import { RestoreProjectPage } from '../features/backup/restore-project-page';
import { ProjectDashboard } from '../features/projects/project-dashboard';
import { TokensPage } from '../features/tokens/tokens-page';
import { UsersPage } from '../features/users/users-page';
import { AppsPage } from '../features/apps/apps-page';
import { RunnersPage } from '../features/runners/runners-page';
import { EnvironmentsPage } from '../features/environments/environments-page';
import { InventoriesPage } from '../features/inventories/inventories-page';
import { KeysPage } from '../features/keys/keys-page';
import { RepositoriesPage } from '../features/repositories/repositories-page';
import { TeamPage } from '../features/team/team-page';
import { ActiveTasksPage } from '../features/tasks/active-tasks-page';
import { TemplatePage } from '../features/templates/template-page';
import { TemplatesPage } from '../features/templates/templates-page';
import { SchedulesPage } from '../features/schedules/schedules-page';
import { IntegrationPage } from '../features/integrations/integration-page';
import { IntegrationsPage } from '../features/integrations/integrations-page';
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
          <Route path="project/restore" element={<RestoreProjectPage />} />
          <Route path="project/:projectId" element={<ProjectRoute />}>
            <Route index element={<ProjectIndexRedirect />} />
            <Route path="history" element={<ProjectDashboard tab="history" />} />
            <Route path="settings" element={<ProjectDashboard tab="settings" />} />
            <Route path="activity" element={<ProjectDashboard tab="activity" />} />
            <Route path="stats" element={<ProjectDashboard tab="stats" />} />
            <Route path="runners" element={<ProjectDashboard tab="runners" />} />
            <Route path="keys/:id?" element={<KeysPage />} />
            <Route path="repositories/:id?" element={<RepositoriesPage />} />
            <Route path="inventory/:id?" element={<InventoriesPage />} />
            <Route path="environment/:id?" element={<EnvironmentsPage />} />
            <Route path="team" element={<TeamPage />} />
            <Route path="schedules/:id?" element={<SchedulesPage />} />
            <Route path="schedule" element={<SchedulesPage />} />
            <Route path="integrations" element={<IntegrationsPage />} />
            <Route path="integrations/:integrationId" element={<IntegrationPage />} />
            <Route path="templates" element={<TemplatesPage />} />
            <Route path="views/:viewId/templates" element={<TemplatesPage />} />
            <Route path="templates/new" element={<Navigate to="../templates" replace />} />
            <Route path="templates/:templateId" element={<TemplatePage tab={null} />} />
            <Route path="templates/:templateId/tasks" element={<TemplatePage tab="tasks" />} />
            <Route path="templates/:templateId/details" element={<TemplatePage tab="details" />} />
            <Route path="templates/:templateId/state" element={<TemplatePage tab="state" />} />
            <Route path="views/:viewId/templates/:templateId/*" element={<ViewTemplateRedirect />} />
          </Route>
          <Route path="users" element={<UsersPage />} />
          <Route path="tokens" element={<TokensPage />} />
          <Route path="tasks" element={<ActiveTasksPage />} />
          <Route path="apps" element={<AppsPage />} />
          <Route path="runners" element={<RunnersPage />} />
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

/** A template reached through a view is the same page as through the list. */
function ViewTemplateRedirect() {
  const { projectId, templateId, '*': rest } = useParams();
  return <Navigate to={`/project/${projectId}/templates/${templateId}/${rest || 'tasks'}`} replace />;
}
