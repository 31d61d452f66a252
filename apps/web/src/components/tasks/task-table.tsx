import ReplayIcon from '@mui/icons-material/Replay';
import { IconButton, Link as MuiLink, Tooltip } from '@mui/material';
import { isFinished, type Task } from '@gantry/contracts';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { formatDateTime, formatDuration } from '../../lib/format';
import { useProjectAccess, useProjectId } from '../../lib/project-access';
import { launchTask } from '../../lib/task-launcher';
import { PagedTable } from '../paged-table';
import type { QueryState } from '../query-states';
import { TaskStatus } from './task-status';

/** The link that opens a task's log dialog over the current page (?t={id}). */
export function useTaskHref() {
  const location = useLocation();
  return (id: number) => {
    const q = new URLSearchParams(location.search);
    q.set('t', String(id));
    return `${location.pathname}?${q.toString()}`;
  };
}

/** The commit a task ran: short hash and subject (spec: 10 and 50 characters). */
const commit = (task: Task) => (task.commit_hash ? `${task.commit_hash.slice(0, 10)} ${task.commit_message.split('\n', 1)[0]!.slice(0, 50)}`.trim() : '');

const duration = (task: Task) => {
  if (!task.start) return '';
  return formatDuration(((task.end ? Date.parse(task.end) : Date.now()) - Date.parse(task.start)) / 1000);
};

/**
 * Re-run of a finished task, for those who may run tasks: the New task dialog opens with that
 * task's message, answers, options, branch, arguments and inventory filled in.
 */
function RerunButton({ task }: { task: Task }) {
  const { t } = useTranslation();
  if (!isFinished(task.status)) return null;
  const label = t('tasks.rerunNamed', { id: task.id });
  return (
    <Tooltip title={label}>
      <IconButton size="small" aria-label={label} onClick={() => launchTask({ projectId: task.project_id, templateId: task.template_id, fromTaskId: task.id })}>
        <ReplayIcon fontSize="small" />
      </IconButton>
    </Tooltip>
  );
}

/**
 * Tasks newest first: number (opens the log), template, status, author, start, duration, and a
 * re-run button. `query` and `empty` are the list's loading, error and empty states (see PagedTable).
 */
export function TaskTable({ tasks, showTemplate = true, paged = true, pageSize, query, empty }: { tasks: Task[]; showTemplate?: boolean; paged?: boolean; pageSize?: number; query?: QueryState; empty?: ReactNode }) {
  const { t } = useTranslation();
  const href = useTaskHref();
  const canRun = useProjectAccess(useProjectId()).canRun;
  return (
    <PagedTable<Task>
      rows={tasks}
      paged={paged}
      pageSize={pageSize}
      query={query}
      empty={empty}
      rowKey={(x) => x.id}
      label={t('tasks.history')}
      columns={[
        {
          key: 'id',
          header: t('tasks.task'),
          render: (x) => (
            <MuiLink component={Link} to={href(x.id)} underline="hover">
              #{x.id}
              {x.version ? ` v${x.version}` : ''}
            </MuiLink>
          ),
        },
        ...(showTemplate ? [{ key: 'template', header: t('tasks.template'), render: (x: Task) => x.tpl_alias ?? '' }] : []),
        { key: 'status', header: t('tasks.status'), render: (x) => <TaskStatus status={x.status} /> },
        { key: 'message', header: t('tasks.message'), render: (x) => x.message },
        { key: 'commit', header: t('tasks.commit'), render: commit },
        { key: 'user', header: t('tasks.user'), render: (x) => x.user_name ?? (x.integration_id ? t('tasks.integration') : x.schedule_id ? t('tasks.schedule') : '') },
        { key: 'start', header: t('tasks.start'), render: (x) => (x.start ? formatDateTime(x.start) : '') },
        { key: 'duration', header: t('tasks.duration'), render: duration },
        ...(canRun ? [{ key: 'rerun', header: '', render: (x: Task) => <RerunButton task={x} /> }] : []),
      ]}
    />
  );
}
