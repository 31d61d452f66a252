import { Box, Link, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import { isFinished, type Task } from '@gantry/contracts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatDuration } from '../../../lib/format';
import { paths } from '../../../lib/paths';

/** Who or what started a task: the user's name, else its integration or schedule, else automatic (a build's deploy). */
export function useTaskAuthor(): (task: Task) => string {
  const { t } = useTranslation();
  return (task) =>
    task.user_name ??
    (task.integration_id ? t('tasks.integration') : task.schedule_id ? t('tasks.schedule') : t('tasks.info.automatic'));
}

/** The clock, ticking each second while `live`. */
function useNow(live: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!live) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [live]);
  return now;
}

/**
 * Under the log dialog's title: who ran the task, when it started (in the console's language)
 * and how long it took, counting up while it runs.
 */
export function TaskLogHeaderInfo({ task }: { task: Task }) {
  const { t } = useTranslation();
  const author = useTaskAuthor();
  const running = !!task.start && !task.end && !isFinished(task.status);
  const now = useNow(running);
  const end = task.end ? Date.parse(task.end) : running ? now : null;
  const item = (label: string, value: string, testId: string) => (
    <Box component="span" sx={{ whiteSpace: 'nowrap' }}>
      <Box component="span" sx={{ color: 'text.secondary' }}>
        {label}{' '}
      </Box>
      <Box component="span" data-testid={testId}>
        {value}
      </Box>
    </Box>
  );
  return (
    <Typography
      variant="body2"
      component="div"
      data-testid="task-info"
      sx={{ display: 'flex', flexWrap: 'wrap', columnGap: 2.5, rowGap: 0.5 }}
    >
      {item(t('tasks.info.by'), author(task), 'task-info-author')}
      {item(t('tasks.start'), task.start ? formatDateTime(task.start) : t('tasks.info.notStarted'), 'task-info-start')}
      {task.start && end !== null
        ? item(t('tasks.duration'), formatDuration((end - Date.parse(task.start)) / 1000), 'task-info-duration')
        : null}
      {task.workflow_run ? (
        // A workflow node's try: back to the run it belongs to.
        <Link
          component={RouterLink}
          to={paths.workflowRun(task.project_id, task.workflow_run.workflow_id, task.workflow_run.id)}
          data-testid="task-info-run"
        >
          {t('tasks.info.workflowRun', {
            id: task.workflow_run.id,
            node: task.workflow_run.node,
            attempt: task.workflow_run.attempt,
          })}
        </Link>
      ) : null}
    </Typography>
  );
}
