import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import EditIcon from '@mui/icons-material/EditOutlined';
import HistoryIcon from '@mui/icons-material/History';
import PlayIcon from '@mui/icons-material/PlayArrow';
import { Box, Button, IconButton, Stack, Tab, Tabs, Tooltip, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { PageSkeleton, QueryStates } from '../../components/query-states';
import { useSnackbar } from '../../components/snackbar';
import { TaskTable } from '../../components/tasks/task-table';
import { useLiveTasks } from '../../components/tasks/use-live-tasks';
import { useSafeDelete } from '../../components/use-safe-delete';
import { errorText } from '../../lib/error-text';
import { useProjectAccess, useProjectId } from '../../lib/project-access';
import { projectKeys, projectQueries } from '../../lib/project-queries';
import { StatsChart } from '../../components/stats-chart';
import { launchTask } from '../../lib/task-launcher';
import { templateQuery, templateTasksQuery, useSetDescription } from './api/templates-api';
import { DescriptionEditor } from './components/description-editor';
import { TemplateSchedules } from './components/template-schedules';
import { TemplateNotifications } from '../notifications/template-notifications';
import { TemplateDetails, TemplateState } from './components/template-details';
import { TemplateDialog } from './components/template-dialog';
import { TemplateReferences } from './components/template-references';
import { TemplateWorkspaces } from './components/template-workspaces';
import { CheckDriftButton } from '../terraform-plans/components/check-drift-button';
import { DriftBadge } from '../terraform-plans/components/drift-badge';

export type TemplateTab = 'tasks' | 'details' | 'state';

/** /project/{id}/templates/{templateId}/{tasks|details|state}. */
export function TemplatePage({ tab }: { tab: TemplateTab | null }) {
  const { t } = useTranslation();
  const projectId = useProjectId();
  const templateId = Number(useParams().templateId);
  const navigate = useNavigate();
  const snackbar = useSnackbar();
  const access = useProjectAccess(projectId);
  const templateResult = useQuery(templateQuery(projectId, templateId));
  const template = templateResult.data;
  const tasksQuery = templateTasksQuery(projectId, templateId);
  const tasksResult = useQuery(tasksQuery);
  const tasks = tasksResult.data ?? [];
  useLiveTasks(tasksQuery.queryKey, projectId, templateId);
  const setDescription = useSetDescription(projectId, templateId);
  const team = useQuery(projectQueries.team(projectId)).data ?? [];
  const [dialog, setDialog] = useState<'edit' | 'copy' | null>(null);
  const base = `/project/${projectId}/templates`;
  const del = useSafeDelete({
    projectId,
    object: t('templates.object'),
    baseUrl: `/project/${projectId}/templates`,
    invalidate: projectKeys.templates(projectId),
    // Its own schedules go with it; deploys built on it and integrations keep it.
    blocks: (r) => r.templates.length > 0 || r.integrations.length > 0,
    onDeleted: (x) => {
      snackbar.success(t('templates.deleted', { name: x.name }));
      void navigate(base);
    },
  });
  if (!tab) return <Navigate to="tasks" replace />;
  if (!template) {
    const back = (
      <Button component={Link} to={base}>
        {t('templates.backToList')}
      </Button>
    );
    const notFound = (
      <EmptyState heading title={t('templates.notFound')} hint={t('templates.notFoundHint')} action={back} />
    );
    return <QueryStates query={templateResult} loading={<PageSkeleton />} notFound={notFound} />;
  }
  const terraform = template.app === 'terraform' || template.app === 'tofu';
  const action =
    template.type === 'build'
      ? t('templates.build')
      : template.type === 'deploy'
        ? t('templates.deploy')
        : t('templates.run');
  return (
    <Box>
      {/* On a phone the name has its own line and the buttons wrap below it. */}
      <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap', mb: 1 }}>
        <Typography
          variant="h5"
          component="h1"
          sx={{ fontWeight: 600, flexGrow: 1, flexBasis: { xs: '100%', sm: 0 }, minWidth: 0, overflowWrap: 'anywhere' }}
        >
          {template.name}
        </Typography>
        {terraform ? <DriftBadge drift={template.drift} /> : null}
        {terraform ? (
          <CheckDriftButton projectId={projectId} templateId={templateId} disabled={!access.canRun} />
        ) : null}
        {access.canManage ? (
          <>
            <Tooltip title={t('common.edit')}>
              <IconButton aria-label={t('templates.edit')} onClick={() => setDialog('edit')}>
                <EditIcon />
              </IconButton>
            </Tooltip>
            <Tooltip title={t('templates.copy')}>
              <IconButton aria-label={t('templates.copy')} onClick={() => setDialog('copy')}>
                <ContentCopyIcon />
              </IconButton>
            </Tooltip>
            <Tooltip title={t('common.delete')}>
              <IconButton aria-label={t('templates.delete')} onClick={() => void del.request(template)}>
                <DeleteIcon />
              </IconButton>
            </Tooltip>
          </>
        ) : null}
        <Button
          variant="contained"
          startIcon={<PlayIcon />}
          disabled={!access.canRun}
          onClick={() => launchTask({ projectId, templateId })}
        >
          {action}
        </Button>
      </Stack>
      <TemplateReferences projectId={projectId} templateId={templateId} />
      <DescriptionEditor
        value={template.description}
        editable={access.canManage}
        onSave={(v) => void setDescription.mutateAsync(v).catch((e: unknown) => snackbar.error(errorText(e)))}
      />
      <Tabs
        value={tab}
        variant="scrollable"
        scrollButtons="auto"
        allowScrollButtonsMobile
        sx={{ my: 2, borderBottom: 1, borderColor: 'divider' }}
      >
        <Tab value="tasks" label={t('templates.tasksTab')} component={Link} to={`${base}/${templateId}/tasks`} />
        <Tab value="details" label={t('templates.detailsTab')} component={Link} to={`${base}/${templateId}/details`} />
        {terraform ? (
          <Tab value="state" label={t('templates.stateTab')} component={Link} to={`${base}/${templateId}/state`} />
        ) : null}
      </Tabs>
      {tab === 'tasks' ? (
        <TaskTable
          tasks={tasks}
          query={tasksResult}
          showTemplate={false}
          pageSize={5}
          empty={
            <EmptyState
              icon={<HistoryIcon sx={{ fontSize: 48, mb: 1 }} />}
              title={t('templates.noTasks')}
              hint={t('templates.noTasksHint')}
              action={
                access.canRun ? (
                  <Button
                    variant="outlined"
                    startIcon={<PlayIcon />}
                    onClick={() => launchTask({ projectId, templateId })}
                  >
                    {t('templates.runFirstTask')}
                  </Button>
                ) : null
              }
            />
          }
        />
      ) : null}
      {tab === 'details' ? (
        <Stack spacing={2}>
          <TemplateDetails projectId={projectId} template={template} />
          <TemplateSchedules projectId={projectId} templateId={templateId} canManage={access.canManage} />
          <TemplateNotifications projectId={projectId} templateId={templateId} />
          <StatsChart baseUrl={`/project/${projectId}/templates/${templateId}`} users={team} />
        </Stack>
      ) : null}
      {tab === 'state' && terraform ? (
        <Stack spacing={3}>
          <TemplateWorkspaces
            projectId={projectId}
            template={template}
            canManage={access.canManage}
            canManageAliases={access.canUpdate}
          />
          <Box>
            <Typography variant="subtitle1">{t('workspaces.summary')}</Typography>
            <TemplateState projectId={projectId} templateId={templateId} />
          </Box>
        </Stack>
      ) : null}
      {dialog ? (
        <TemplateDialog
          projectId={projectId}
          template={template}
          copy={dialog === 'copy'}
          onClose={() => setDialog(null)}
          onSaved={(id) => {
            setDialog(null);
            if (id !== templateId) void navigate(`${base}/${id}`);
          }}
        />
      ) : null}
      {del.dialogs}
    </Box>
  );
}
