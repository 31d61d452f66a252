import CloseIcon from '@mui/icons-material/Close';
import FullscreenExitIcon from '@mui/icons-material/FullscreenExit';
import FullscreenIcon from '@mui/icons-material/Fullscreen';
import ReplayIcon from '@mui/icons-material/Replay';
import { Box, Button, Dialog, DialogContent, DialogTitle, IconButton, Stack, Typography } from '@mui/material';
import { STOPPABLE_STATUSES, TASK_DIALOG_MAX_WIDTH, isFinished, type TaskStatus as Status } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMatch, useNavigate, useSearchParams } from 'react-router';
import { TaskStatus } from '../../components/tasks/task-status';
import { useSnackbar } from '../../components/snackbar';
import { errorText } from '../../lib/error-text';
import { storage, StorageKeys } from '../../lib/storage';
import { launchTask } from '../../lib/task-launcher';
import { taskQuery, useTaskActions } from './api/tasks-api';
import { LogView } from './components/log-view';
import { useTaskLog } from './components/use-task-log';

/** Opens over any page when the URL has ?t={taskId} (in the current project). */
export function TaskLogHost() {
  const [params] = useSearchParams();
  const match = useMatch('/project/:projectId/*');
  const projectId = Number(match?.params.projectId ?? storage.get(StorageKeys.projectId));
  const taskId = Number(params.get('t'));
  if (!taskId || !projectId) return null;
  return <TaskLogDialog key={taskId} projectId={projectId} taskId={taskId} />;
}

function TaskLogDialog({ projectId, taskId }: { projectId: number; taskId: number }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const snackbar = useSnackbar();
  const task = useQuery(taskQuery(projectId, taskId)).data;
  const lines = useTaskLog(projectId, taskId);
  const actions = useTaskActions(projectId, taskId);
  const [fullscreen, setFullscreen] = useState(storage.get(StorageKeys.fullscreen('task')) === 'true');
  const close = () => {
    const q = new URLSearchParams(params);
    q.delete('t');
    void navigate({ search: q.toString() }, { replace: true });
  };
  const toggleFullscreen = () => {
    storage.set(StorageKeys.fullscreen('task'), String(!fullscreen));
    setFullscreen(!fullscreen);
  };
  const act = (p: Promise<unknown>) => void p.catch((e: unknown) => snackbar.error(errorText(e)));
  const status = task?.status;
  return (
    <Dialog open onClose={close} fullScreen={fullscreen} fullWidth maxWidth={false} slotProps={{ paper: { sx: fullscreen ? {} : { maxWidth: TASK_DIALOG_MAX_WIDTH } } }}>
      <DialogTitle sx={{ display: 'flex', alignItems: 'center', gap: 1.5, pr: 1 }}>
        <Typography variant="h6" component="span">
          {t('tasks.title', { id: taskId })}
        </Typography>
        {status ? <TaskStatus status={status} /> : null}
        <Typography variant="body2" color="text.secondary" noWrap sx={{ flexGrow: 1 }}>
          {task?.tpl_alias}
        </Typography>
        {status === 'waiting_confirmation' ? (
          <>
            <Button variant="contained" color="success" onClick={() => act(actions.confirm.mutateAsync())}>
              {t('tasks.confirm')}
            </Button>
            <Button color="error" onClick={() => act(actions.reject.mutateAsync())}>
              {t('tasks.reject')}
            </Button>
          </>
        ) : null}
        {status && STOPPABLE_STATUSES.includes(status as Status) && status !== 'rejected' ? (
          <Button color="error" variant="outlined" onClick={() => act(actions.stop.mutateAsync(status === 'stopping'))}>
            {status === 'stopping' ? t('tasks.forceStop') : t('tasks.stop')}
          </Button>
        ) : null}
        {status && isFinished(status) ? (
          <>
            <Button href={`/api/project/${projectId}/tasks/${taskId}/raw_output`} target="_blank" rel="noopener">
              {t('tasks.rawLog')}
            </Button>
            <IconButton aria-label={t('tasks.rerun')} onClick={() => task && launchTask({ projectId, templateId: task.template_id, fromTaskId: task.id })}>
              <ReplayIcon />
            </IconButton>
          </>
        ) : null}
        <IconButton aria-label={t('tasks.fullscreen')} onClick={toggleFullscreen}>
          {fullscreen ? <FullscreenExitIcon /> : <FullscreenIcon />}
        </IconButton>
        <IconButton aria-label={t('common.close')} onClick={close}>
          <CloseIcon />
        </IconButton>
      </DialogTitle>
      <DialogContent>
        <Stack spacing={1}>
          {task?.message ? <Typography variant="body2">{task.message}</Typography> : null}
          {task?.commit_hash ? (
            <Typography variant="caption" color="text.secondary">
              {task.commit_hash.slice(0, 10)} {task.commit_message.slice(0, 50)}
            </Typography>
          ) : null}
          <Box>
            <LogView lines={lines} height={fullscreen ? 'calc(100vh - 160px)' : 520} />
          </Box>
        </Stack>
      </DialogContent>
    </Dialog>
  );
}
