import CloseIcon from '@mui/icons-material/Close';
import FullscreenExitIcon from '@mui/icons-material/FullscreenExit';
import FullscreenIcon from '@mui/icons-material/Fullscreen';
import {
  Alert,
  Box,
  Dialog,
  DialogContent,
  DialogTitle,
  IconButton,
  Stack,
  Tab,
  Tabs,
  Typography,
  useMediaQuery,
  useTheme,
} from '@mui/material';
import { TASK_DIALOG_MAX_WIDTH, isFinished } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { TaskStatus } from '../../components/tasks/task-status';
import { errorText } from '../../lib/error-text';
import { storage, StorageKeys } from '../../lib/storage';
import { taskQuery } from './api/tasks-api';
import { LogSearchResults } from './components/log-search-results';
import { LogToolbar } from './components/log-toolbar';
import { LogView, type LogViewHandle } from './components/log-view';
import { TaskFinishedActions, TaskRunActions } from './components/task-log-actions';
import { TaskApproval } from './components/task-approval';
import { TaskLogHeaderInfo } from './components/task-log-header-info';
import { useTaskLog } from './components/use-task-log';
import { PlanView } from '../terraform-plans/components/plan-view';

// Loaded with the dialog: Run starts the new task's log with it before the dialog renders.
export { prepareTaskLog } from './components/use-task-log';

/**
 * A task's status, actions and log (opened by TaskLogHost). Below 960 px it fills the screen
 * unless this browser was told otherwise; its run actions then sit above the log and the others in
 * a menu. A wide header keeps one line (the template's name gives way first, then the status
 * label); on a phone the name has a line of its own.
 */
export function TaskLogDialog({ projectId, taskId }: { projectId: number; taskId: number }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  // noSsr: the first render already knows the width, so a phone never sees the windowed dialog.
  const mobile = useMediaQuery(useTheme().breakpoints.down('md'), { noSsr: true });
  const taskResult = useQuery(taskQuery(projectId, taskId));
  const task = taskResult.data;
  const status = task?.status;
  const loader = useTaskLog(projectId, taskId, status);
  const view = useRef<LogViewHandle>(null);
  // The browser's own choice, if it made one; else full screen on a phone, a window elsewhere.
  const [fullscreen, setFullscreen] = useState<boolean | null>(() => {
    const stored = storage.get(StorageKeys.fullscreen('task'));
    return stored === null ? null : stored === 'true';
  });
  const [showTime, setShowTime] = useState(storage.get(StorageKeys.logTimestamps) === 'true');
  const [q, setQ] = useState('');
  // Whether the task was running when its status was first known: the view then follows the end.
  const [followAtOpen, setFollowAtOpen] = useState<boolean | null>(null);
  if (status && followAtOpen === null) setFollowAtOpen(!isFinished(status));
  // A planned Terraform task has a Plan tab beside the log (shown first while it waits for confirmation or when its policy blocked it).
  const [pane, setPane] = useState<'log' | 'plan' | null>(null);
  const plan = task?.plan_summary ?? null;
  const planFirst = status === 'waiting_confirmation' || plan?.policy?.passed === false;
  const shown = plan ? (pane ?? (planFirst ? 'plan' : 'log')) : 'log';

  const close = () => {
    const next = new URLSearchParams(params);
    next.delete('t');
    void navigate({ search: next.toString() }, { replace: true });
  };
  const full = fullscreen ?? mobile;
  const toggleFullscreen = () => {
    storage.set(StorageKeys.fullscreen('task'), String(!full));
    setFullscreen(!full);
  };
  const toggleTime = (show: boolean) => {
    storage.set(StorageKeys.logTimestamps, String(show));
    setShowTime(show);
  };
  return (
    <Dialog
      open
      onClose={close}
      fullScreen={full}
      fullWidth
      maxWidth={false}
      slotProps={{
        paper: { sx: full ? {} : { maxWidth: TASK_DIALOG_MAX_WIDTH, height: 'min(820px, calc(100% - 64px))' } },
      }}
    >
      <DialogTitle
        sx={{
          display: 'flex',
          flexWrap: { xs: 'wrap', md: 'nowrap' },
          alignItems: 'center',
          gap: { xs: 1, md: 1.5 },
          pr: 1,
          pl: { xs: 2, md: 3 },
          minWidth: 0,
        }}
      >
        <Typography variant="h6" component="span" noWrap sx={{ flexShrink: 0 }}>
          {t('tasks.title', { id: taskId })}
        </Typography>
        {status ? (
          <Box sx={{ display: 'flex', minWidth: 0, flexShrink: 1 }}>
            <TaskStatus status={status} />
          </Box>
        ) : null}
        {/* On a phone the template's name takes a line of its own under the status and buttons. */}
        <Box sx={{ flex: 1, display: { xs: 'block', md: 'none' } }} />
        <Typography
          variant="body2"
          color="text.secondary"
          sx={{
            flex: { xs: '1 0 100%', md: '1 1 0' },
            order: { xs: 1, md: 0 },
            minWidth: 0,
            overflow: 'hidden',
            textOverflow: 'ellipsis',
            whiteSpace: { xs: 'normal', md: 'nowrap' },
          }}
        >
          {task?.tpl_alias}
        </Typography>
        {task && !mobile ? <TaskRunActions projectId={projectId} task={task} /> : null}
        {task ? <TaskFinishedActions projectId={projectId} task={task} compact={mobile} /> : null}
        <IconButton
          aria-label={t('tasks.fullscreen')}
          aria-pressed={full}
          onClick={toggleFullscreen}
          sx={{ flexShrink: 0 }}
        >
          {full ? <FullscreenExitIcon /> : <FullscreenIcon />}
        </IconButton>
        <IconButton aria-label={t('common.close')} onClick={close} sx={{ flexShrink: 0 }}>
          <CloseIcon />
        </IconButton>
      </DialogTitle>
      <DialogContent sx={{ display: 'flex', flexDirection: 'column', gap: 1, minHeight: 0, px: { xs: 1.5, md: 3 } }}>
        {task && mobile ? (
          <Stack direction="row" spacing={1} sx={{ '&:empty': { display: 'none' } }}>
            <TaskRunActions projectId={projectId} task={task} />
          </Stack>
        ) : null}
        {taskResult.error ? <Alert severity="error">{errorText(taskResult.error)}</Alert> : null}
        {task ? <TaskLogHeaderInfo task={task} /> : null}
        <TaskApproval projectId={projectId} taskId={taskId} status={status} />
        {task?.message ? <Typography variant="body2">{task.message}</Typography> : null}
        {task?.commit_hash ? (
          <Typography variant="caption" color="text.secondary" noWrap>
            {task.commit_hash.slice(0, 10)} {task.commit_message.slice(0, 50)}
          </Typography>
        ) : null}
        {plan ? (
          <Tabs
            value={shown}
            onChange={(_e, v: 'log' | 'plan') => setPane(v)}
            sx={{ minHeight: 40, flexShrink: 0, borderBottom: 1, borderColor: 'divider' }}
          >
            <Tab value="log" label={t('terraformPlans.logTab')} sx={{ minHeight: 40 }} />
            <Tab value="plan" label={t('terraformPlans.planTab')} sx={{ minHeight: 40 }} />
          </Tabs>
        ) : null}
        {plan && shown === 'plan' ? (
          <Box sx={{ flex: 1, minHeight: 0, overflow: 'auto' }}>
            <PlanView summary={plan} confirmation={task?.plan_confirmation} />
          </Box>
        ) : null}
        {/* The log stays mounted (its place and loaded lines kept) while the plan shows. */}
        <Box
          sx={{ display: shown === 'log' ? 'flex' : 'none', flexDirection: 'column', gap: 1, flex: 1, minHeight: 0 }}
        >
          <LogToolbar
            onSearch={setQ}
            onFirst={() => view.current?.toStart()}
            onLast={() => view.current?.toEnd()}
            onGoToLine={(seq) => view.current?.goToLine(seq) ?? null}
            showTime={showTime}
            onShowTime={toggleTime}
          />
          {q ? (
            <LogSearchResults
              projectId={projectId}
              taskId={taskId}
              q={q}
              onPick={(seq) => view.current?.showSeq(seq)}
            />
          ) : null}
          {followAtOpen === null ? null : (
            <LogView
              ref={view}
              loader={loader}
              follow={followAtOpen}
              showTime={showTime}
              sx={{ flex: 1, minHeight: 160 }}
            />
          )}
        </Box>
      </DialogContent>
    </Dialog>
  );
}
