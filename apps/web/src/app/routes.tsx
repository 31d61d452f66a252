import { Navigate, Route, Routes, useLocation, useParams } from 'react-router';
import { AdminRoute } from './admin-route';
import { lazyPage } from './lazy-page';
import { NotFound } from './not-found';
import { RootRedirect } from './root-redirect';
import { RouteBoundary } from './route-boundary';
import { SessionGate } from './session-gate';
import { loadedShell } from './shell-loader';
import { ProjectRoute } from './project-route';

// Every screen family is its own chunk, so the sign-in page loads only what it needs and heavy
// libraries (charts, the code editor, drag and drop) load with the screens that use them.
const LoginPage = lazyPage(() => import('./screens/sign-in'), 'SignInPage');
const projects = () => import('./screens/projects');
const NewProjectPage = lazyPage(projects, 'NewProjectPage');
const ProjectDashboard = lazyPage(() => import('./screens/project-dashboard'), 'ProjectDashboard');
const RestoreProjectPage = lazyPage(() => import('../features/backup/restore-project-page'), 'RestoreProjectPage');
const resources = () => import('./screens/resources');
const KeysPage = lazyPage(resources, 'KeysPage');
const RepositoriesPage = lazyPage(resources, 'RepositoriesPage');
const InventoriesPage = lazyPage(resources, 'InventoriesPage');
const EnvironmentsPage = lazyPage(resources, 'EnvironmentsPage');
const HostsPage = lazyPage(() => import('../features/hosts/hosts-page'), 'HostsPage');
const TeamPage = lazyPage(() => import('../features/team/team-page'), 'TeamPage');
const SchedulesPage = lazyPage(() => import('../features/schedules/schedules-page'), 'SchedulesPage');
const WorkflowsPage = lazyPage(() => import('../features/workflows/workflows-page'), 'WorkflowsPage');
// The editor and the run view share the graph library (@xyflow/react and its CSS), loaded with them only.
const WorkflowEditorPage = lazyPage(() => import('../features/workflows/workflow-editor-page'), 'WorkflowEditorPage');
const WorkflowRunPage = lazyPage(() => import('../features/workflows/workflow-run-page'), 'WorkflowRunPage');
const integrations = () => import('./screens/integrations');
const IntegrationsPage = lazyPage(integrations, 'IntegrationsPage');
const IntegrationPage = lazyPage(integrations, 'IntegrationPage');
const notifications = () => import('./screens/notifications');
const NotificationsPage = lazyPage(notifications, 'NotificationsPage');
const GlobalNotificationsPage = lazyPage(notifications, 'GlobalNotificationsPage');
const templates = () => import('./screens/templates');
const TemplatesPage = lazyPage(templates, 'TemplatesPage');
const TemplatePage = lazyPage(templates, 'TemplatePage');
const ActiveTasksPage = lazyPage(() => import('../features/tasks/active-tasks-page'), 'ActiveTasksPage');
const approvals = () => import('../features/approvals/approvals-screens');
const ApprovalsInboxPage = lazyPage(approvals, 'ApprovalsInboxPage');
const ApprovalLinkPage = lazyPage(approvals, 'ApprovalLinkPage');
const ProjectApprovalsPage = lazyPage(approvals, 'ProjectApprovalsPage');
const ApprovalPage = lazyPage(approvals, 'ApprovalPage');
const admin = () => import('./screens/admin');
const UsersPage = lazyPage(admin, 'UsersPage');
const TokensPage = lazyPage(admin, 'TokensPage');
const AppsPage = lazyPage(admin, 'AppsPage');
const RunnersPage = lazyPage(admin, 'RunnersPage');
const ClusterPage = lazyPage(admin, 'ClusterPage');
const IdentityMappingsPage = lazyPage(admin, 'IdentityMappingsPage');
const SecurityPage = lazyPage(admin, 'SecurityPage');
const AuditPage = lazyPage(admin, 'AuditPage');

export function AppRoutes() {
  return (
    <RouteBoundary fullPage>
      <Routes>
        <Route path="/auth/login" element={<LoginPage />} />
        <Route element={<SessionGate />}>
          <Route element={<Shell />}>
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
              <Route path="hosts" element={<HostsPage />} />
              <Route path="environment/:id?" element={<EnvironmentsPage />} />
              <Route path="team" element={<TeamPage />} />
              <Route path="schedules/:id?" element={<SchedulesPage />} />
              <Route path="schedule" element={<SchedulesPage />} />
              <Route path="workflows" element={<WorkflowsPage />} />
              <Route path="workflows/:id" element={<WorkflowEditorPage />} />
              <Route path="workflows/:id/runs/:runId" element={<WorkflowRunPage />} />
              <Route path="approvals" element={<ProjectApprovalsPage />} />
              <Route path="approvals/:id" element={<ApprovalPage />} />
              <Route path="integrations" element={<IntegrationsPage />} />
              <Route path="integrations/:integrationId" element={<IntegrationPage />} />
              <Route path="notifications" element={<NotificationsPage />} />
              <Route path="templates" element={<TemplatesPage />} />
              <Route path="views/:viewId/templates" element={<TemplatesPage />} />
              <Route path="templates/new" element={<Navigate to="../templates" replace />} />
              <Route path="templates/:templateId" element={<TemplatePage tab={null} />} />
              <Route path="templates/:templateId/tasks" element={<TemplatePage tab="tasks" />} />
              <Route path="templates/:templateId/details" element={<TemplatePage tab="details" />} />
              <Route path="templates/:templateId/state" element={<TemplatePage tab="state" />} />
              <Route path="views/:viewId/templates/:templateId/*" element={<ViewTemplateRedirect />} />
            </Route>
            <Route path="tokens" element={<TokensPage />} />
            <Route path="approvals" element={<ApprovalsInboxPage />} />
            <Route path="approvals/:id" element={<ApprovalLinkPage />} />
            <Route element={<AdminRoute />}>
              <Route path="users" element={<UsersPage />} />
              <Route path="tasks" element={<ActiveTasksPage />} />
              <Route path="apps" element={<AppsPage />} />
              <Route path="runners" element={<RunnersPage />} />
              <Route path="cluster" element={<ClusterPage />} />
              <Route path="identity-mappings" element={<IdentityMappingsPage />} />
              <Route path="security" element={<SecurityPage />} />
              <Route path="audit" element={<AuditPage />} />
              <Route path="notifications" element={<GlobalNotificationsPage />} />
            </Route>
            <Route path="*" element={<NotFound />} />
          </Route>
        </Route>
      </Routes>
    </RouteBoundary>
  );
}

/** The app shell, already loaded by the session gate (which renders its routes only then). */
function Shell() {
  const AppShell = loadedShell();
  return AppShell ? <AppShell /> : null;
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
