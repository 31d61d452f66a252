import AddIcon from '@mui/icons-material/Add';
import EditIcon from '@mui/icons-material/EditOutlined';
import PlayIcon from '@mui/icons-material/PlayArrow';
import { Box, Button, IconButton, Link as MuiLink, Tab, Tabs, Tooltip } from '@mui/material';
import type { Template } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useLocation, useNavigate, useParams } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { QueryStates } from '../../components/query-states';
import { PagedTable } from '../../components/paged-table';
import { TaskStatus } from '../../components/tasks/task-status';
import { useProjectAccess, useProjectId } from '../../lib/project-access';
import { projectQueries } from '../../lib/project-queries';
import { useCurrentUser } from '../../lib/session';
import { storage, StorageKeys } from '../../lib/storage';
import { launchTask } from '../../lib/task-launcher';
import { appsQuery } from './api/templates-api';
import { TemplateColumnsButton, useTemplateColumns, type TemplateColumn } from './components/template-columns';
import { TemplateDialog } from './components/template-dialog';
import { ViewsDialog } from './components/views-dialog';
import { DriftBadge } from '../terraform-plans/components/drift-badge';

/** /project/{id}/templates and /views/{viewId}/templates: All and one tab per view. */
export function TemplatesPage() {
  const { t } = useTranslation();
  const projectId = useProjectId();
  const viewId = Number(useParams().viewId) || null;
  const navigate = useNavigate();
  const me = useCurrentUser();
  const access = useProjectAccess(projectId);
  const query = useQuery(projectQueries.templates(projectId));
  const templates = query.data ?? [];
  const viewsQuery = useQuery(projectQueries.views(projectId));
  const views = viewsQuery.data ?? [];
  const apps = useQuery(appsQuery).data ?? [];
  const [creating, setCreating] = useState(false);
  const [editingViews, setEditingViews] = useState(false);
  const columns = useTemplateColumns();
  const headers: Record<TemplateColumn, string> = {
    app: t('templates.app'),
    type: t('templates.type'),
    version: t('templates.version'),
    last: t('templates.lastTask'),
    lastBy: t('templates.lastTaskBy'),
  };
  const noActiveApp = apps.length > 0 && !apps.some((a) => a.active);
  const shown = viewId ? templates.filter((x) => x.view_id === viewId) : templates;
  const base = `/project/${projectId}`;
  // The tab last visited in the project is where its templates open (spec: stored locally); the
  // All tab says it was chosen, so that it is remembered too and not redirected.
  const allChosen = (useLocation().state as { all?: boolean } | null)?.all === true;
  const lastView = Number(storage.get(StorageKeys.lastView(projectId))) || null;
  const lastViewGone = !!lastView && !!viewsQuery.data && !views.some((v) => v.id === lastView);
  useEffect(() => {
    if (viewId) storage.set(StorageKeys.lastView(projectId), String(viewId));
    else if (allChosen || lastViewGone) storage.remove(StorageKeys.lastView(projectId));
  }, [projectId, viewId, allChosen, lastViewGone]);
  if (!viewId && !allChosen && lastView && !lastViewGone && !viewsQuery.isError) {
    return viewsQuery.data ? <Navigate to={`${base}/views/${lastView}/templates`} replace /> : null;
  }
  return (
    <Box>
      <PageHeader
        title={t('templates.title')}
        actions={
          access.canManage ? (
            <Button
              variant="contained"
              startIcon={<AddIcon />}
              onClick={() => setCreating(true)}
              disabled={noActiveApp && !me.admin}
            >
              {t('templates.new')}
            </Button>
          ) : null
        }
      />
      <Box sx={{ display: 'flex', alignItems: 'center', borderBottom: 1, borderColor: 'divider', mb: 2 }}>
        <Tabs value={viewId ?? 0} variant="scrollable" sx={{ flexGrow: 1 }}>
          <Tab value={0} label={t('templates.all')} component={Link} to={`${base}/templates`} state={{ all: true }} />
          {views.map((v) => (
            <Tab key={v.id} value={v.id} label={v.title} component={Link} to={`${base}/views/${v.id}/templates`} />
          ))}
        </Tabs>
        <TemplateColumnsButton hidden={columns.hidden} headers={headers} onToggle={columns.toggle} />
        {access.canManage ? (
          <Tooltip title={t('templates.editViews')}>
            <IconButton aria-label={t('templates.editViews')} onClick={() => setEditingViews(true)}>
              <EditIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        ) : null}
      </Box>
      {shown.length ? (
        <PagedTable<Template>
          rows={shown}
          paged={false}
          rowKey={(x) => x.id}
          label={t('templates.title')}
          columns={[
            {
              key: 'name',
              header: t('common.name'),
              render: (x: Template) => (
                <>
                  <MuiLink component={Link} to={`${base}/templates/${x.id}`}>
                    {x.name}
                  </MuiLink>
                  {/* Terraform/OpenTofu: what the last drift check of its workspaces found. */}
                  {x.app === 'terraform' || x.app === 'tofu' ? (
                    <Box component="span" sx={{ ml: 1, display: 'inline-block' }}>
                      <DriftBadge drift={x.drift} />
                    </Box>
                  ) : null}
                </>
              ),
            },
            {
              key: 'app',
              header: headers.app,
              render: (x: Template) => apps.find((a) => a.id === x.app)?.title ?? x.app,
            },
            { key: 'type', header: headers.type, render: (x: Template) => t(`templates.types.${x.type || 'task'}`) },
            {
              key: 'version',
              header: headers.version,
              render: (x: Template) => x.last_task?.version ?? x.last_task?.build_task?.version ?? '',
            },
            {
              key: 'last',
              header: headers.last,
              render: (x: Template) => (x.last_task ? <TaskStatus status={x.last_task.status} /> : ''),
            },
            { key: 'lastBy', header: headers.lastBy, render: (x: Template) => x.last_task?.user_name ?? '' },
          ]
            .filter((c) => !columns.hidden.includes(c.key as TemplateColumn))
            .concat({
              key: 'run',
              header: '',
              render: (x) => (
                <Button
                  size="small"
                  startIcon={<PlayIcon />}
                  disabled={!access.canRun}
                  onClick={() => launchTask({ projectId, templateId: x.id })}
                  aria-label={t('templates.runNamed', { name: x.name })}
                >
                  {x.type === 'build'
                    ? t('templates.build')
                    : x.type === 'deploy'
                      ? t('templates.deploy')
                      : t('templates.run')}
                </Button>
              ),
            })}
        />
      ) : (
        <QueryStates
          query={query}
          empty={
            <EmptyState
              title={t('templates.noneList')}
              hint={t('templates.noneHint')}
              action={
                access.canManage && !viewId ? (
                  <Button variant="outlined" onClick={() => setCreating(true)} disabled={noActiveApp && !me.admin}>
                    {t('templates.createFirst')}
                  </Button>
                ) : null
              }
            />
          }
        />
      )}
      {creating ? (
        <TemplateDialog
          projectId={projectId}
          template={null}
          onClose={() => setCreating(false)}
          onSaved={(id) => void navigate(`${base}/templates/${id}`)}
        />
      ) : null}
      {editingViews ? <ViewsDialog projectId={projectId} views={views} onClose={() => setEditingViews(false)} /> : null}
    </Box>
  );
}
