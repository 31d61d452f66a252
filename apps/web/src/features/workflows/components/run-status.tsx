import CancelIcon from '@mui/icons-material/Cancel';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import HourglassIcon from '@mui/icons-material/HourglassEmpty';
import PauseCircleIcon from '@mui/icons-material/PauseCircleOutlined';
import RemoveIcon from '@mui/icons-material/RemoveCircleOutlined';
import ReplayIcon from '@mui/icons-material/Replay';
import StopCircleIcon from '@mui/icons-material/StopCircleOutlined';
import { Chip, CircularProgress } from '@mui/material';
import type { WorkflowNodeStatus, WorkflowRunStatus } from '@gantry/contracts';
import type { ReactElement } from 'react';
import { useTranslation } from 'react-i18next';

type AnyStatus = WorkflowRunStatus | WorkflowNodeStatus;

const ICONS: Partial<Record<AnyStatus, ReactElement>> = {
  success: <CheckCircleIcon fontSize="small" color="success" />,
  failed: <CancelIcon fontSize="small" color="error" />,
  stopped: <StopCircleIcon fontSize="small" />,
  // The chip's label says the status: the spinner is decoration only.
  stopping: <CircularProgress size={14} color="warning" aria-hidden="true" />,
  running: <CircularProgress size={14} aria-hidden="true" />,
  retry_wait: <ReplayIcon fontSize="small" color="warning" />,
  waiting_approval: <PauseCircleIcon fontSize="small" color="warning" />,
  skipped: <RemoveIcon fontSize="small" />,
};

/** A run's or a node's status: its word and an icon (never colour alone). */
export function RunStatus({ status, kind }: { status: AnyStatus; kind: 'run' | 'node' }) {
  const { t } = useTranslation();
  return (
    <Chip
      size="small"
      variant="outlined"
      icon={ICONS[status] ?? <HourglassIcon fontSize="small" />}
      label={t(kind === 'run' ? `workflows.runStatus.${status}` : `workflows.nodeStatus.${status}`)}
      color={status === 'success' ? 'success' : status === 'failed' ? 'error' : 'default'}
      data-testid={`${kind}-status`}
      data-status={status}
    />
  );
}
