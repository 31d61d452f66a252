import RadarIcon from '@mui/icons-material/Radar';
import {
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  FormControlLabel,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { FormError } from '../../../components/form-error';
import { useCreateTask } from '../../tasks/api/tasks-api';
import { openTaskLog } from '../../tasks/task-log-host';
import { WorkspaceSelect } from './workspace-select';

/** "Check drift" on a Terraform/OpenTofu template: a plan-only task (optionally -refresh-only) whose log opens. */
export function CheckDriftButton({
  projectId,
  templateId,
  disabled,
}: {
  projectId: number;
  templateId: number;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [refreshOnly, setRefreshOnly] = useState(false);
  const [workspace, setWorkspace] = useState<number | ''>('');
  const create = useCreateTask(projectId);
  const navigate = useNavigate();
  const location = useLocation();
  const start = async () => {
    const task = await create
      .mutateAsync({
        template_id: templateId,
        ...(workspace ? { inventory_id: workspace } : {}),
        params: { drift_check: { refresh_only: refreshOnly } },
      })
      .catch(() => null);
    if (!task) return;
    const q = new URLSearchParams(location.search);
    q.set('t', String(task.id));
    openTaskLog(projectId, task, () => void navigate(`${location.pathname}?${q.toString()}`));
    setOpen(false);
  };
  return (
    <>
      <Button variant="outlined" startIcon={<RadarIcon />} disabled={disabled} onClick={() => setOpen(true)}>
        {t('terraformPlans.checkDrift')}
      </Button>
      {open ? (
        <Dialog open onClose={() => setOpen(false)} maxWidth="xs" fullWidth>
          <DialogTitle>{t('terraformPlans.checkDrift')}</DialogTitle>
          <DialogContent>
            <FormError error={create.error} />
            <DialogContentText sx={{ mb: 2 }}>{t('terraformPlans.checkDriftText')}</DialogContentText>
            <WorkspaceSelect projectId={projectId} templateId={templateId} value={workspace} onChange={setWorkspace} />
            <FormControlLabel
              control={<Checkbox checked={refreshOnly} onChange={(e) => setRefreshOnly(e.target.checked)} />}
              label={t('terraformPlans.refreshOnly')}
            />
          </DialogContent>
          <DialogActions>
            <Button onClick={() => setOpen(false)}>{t('common.cancel')}</Button>
            <Button variant="contained" disabled={create.isPending} onClick={() => void start()}>
              {t('terraformPlans.startCheck')}
            </Button>
          </DialogActions>
        </Dialog>
      ) : null}
    </>
  );
}
