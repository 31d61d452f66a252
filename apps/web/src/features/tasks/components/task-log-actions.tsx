import DownloadIcon from '@mui/icons-material/Download';
import MoreVertIcon from '@mui/icons-material/MoreVert';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import ReplayIcon from '@mui/icons-material/Replay';
import { Button, IconButton, ListItemIcon, Menu, MenuItem, Tooltip } from '@mui/material';
import { STOPPABLE_STATUSES, isFinished, type Task, type TaskStatus } from '@gantry/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnackbar } from '../../../components/snackbar';
import { errorText } from '../../../lib/error-text';
import { launchTask } from '../../../lib/task-launcher';
import { taskRawOutputUrl, useTaskActions } from '../api/tasks-api';
import { PlanConfirmDialog } from '../../terraform-plans/components/plan-confirm-dialog';

/** Confirm / reject (waiting for confirmation) and stop (while it runs): what changes the task. */
export function TaskRunActions({ projectId, task }: { projectId: number; task: Task }) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const actions = useTaskActions(projectId, task.id);
  const act = (p: Promise<unknown>) => void p.catch((e: unknown) => snackbar.error(errorText(e)));
  const status = task.status;
  // A planned Terraform task is confirmed in a dialog that shows what its saved plan does.
  const [confirming, setConfirming] = useState(false);
  const plan = task.plan_summary;
  return (
    <>
      {status === 'waiting_confirmation' ? (
        <>
          <Button
            variant="contained"
            color="success"
            onClick={() => (plan ? setConfirming(true) : act(actions.confirm.mutateAsync()))}
          >
            {t('tasks.confirm')}
          </Button>
          <Button color="error" onClick={() => act(actions.reject.mutateAsync())}>
            {t('tasks.reject')}
          </Button>
        </>
      ) : null}
      {STOPPABLE_STATUSES.includes(status as TaskStatus) && status !== 'rejected' ? (
        <Button
          color="error"
          variant="outlined"
          sx={{ flexShrink: 0 }}
          onClick={() => act(actions.stop.mutateAsync(status === 'stopping'))}
        >
          {status === 'stopping' ? t('tasks.forceStop') : t('tasks.stop')}
        </Button>
      ) : null}
      {confirming && plan ? (
        <PlanConfirmDialog
          projectId={projectId}
          summary={plan}
          onConfirm={() => actions.confirm.mutateAsync()}
          onClose={() => setConfirming(false)}
        />
      ) : null}
    </>
  );
}

/**
 * Raw log, download and re-run, once the task is finished: buttons on a wide screen, a menu on a
 * narrow one (`compact`).
 */
export function TaskFinishedActions({ projectId, task, compact }: { projectId: number; task: Task; compact: boolean }) {
  const { t } = useTranslation();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  if (!isFinished(task.status)) return null;
  const rerun = () => launchTask({ projectId, templateId: task.template_id, fromTaskId: task.id });
  if (compact) {
    return (
      <>
        <IconButton aria-label={t('tasks.log.moreActions')} onClick={(e) => setAnchor(e.currentTarget)}>
          <MoreVertIcon />
        </IconButton>
        <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)}>
          <MenuItem
            component="a"
            href={taskRawOutputUrl(projectId, task.id)}
            target="_blank"
            rel="noopener"
            onClick={() => setAnchor(null)}
          >
            <ListItemIcon>
              <OpenInNewIcon fontSize="small" />
            </ListItemIcon>
            {t('tasks.rawLog')}
          </MenuItem>
          <MenuItem
            component="a"
            href={taskRawOutputUrl(projectId, task.id, true)}
            download
            onClick={() => setAnchor(null)}
          >
            <ListItemIcon>
              <DownloadIcon fontSize="small" />
            </ListItemIcon>
            {t('tasks.log.download')}
          </MenuItem>
          <MenuItem
            onClick={() => {
              setAnchor(null);
              rerun();
            }}
          >
            <ListItemIcon>
              <ReplayIcon fontSize="small" />
            </ListItemIcon>
            {t('tasks.rerun')}
          </MenuItem>
        </Menu>
      </>
    );
  }
  return (
    <>
      <Button href={taskRawOutputUrl(projectId, task.id)} target="_blank" rel="noopener" sx={{ flexShrink: 0 }}>
        {t('tasks.rawLog')}
      </Button>
      <Button
        href={taskRawOutputUrl(projectId, task.id, true)}
        download
        startIcon={<DownloadIcon />}
        sx={{ flexShrink: 0 }}
      >
        {t('tasks.log.download')}
      </Button>
      <Tooltip title={t('tasks.rerun')}>
        <IconButton aria-label={t('tasks.rerun')} onClick={rerun}>
          <ReplayIcon />
        </IconButton>
      </Tooltip>
    </>
  );
}
