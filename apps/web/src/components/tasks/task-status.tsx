import CancelIcon from '@mui/icons-material/Cancel';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import HourglassIcon from '@mui/icons-material/HourglassEmpty';
import HowToVoteIcon from '@mui/icons-material/HowToVoteOutlined';
import PauseCircleIcon from '@mui/icons-material/PauseCircleOutlined';
import StopCircleIcon from '@mui/icons-material/StopCircleOutlined';
import { Chip, CircularProgress } from '@mui/material';
import type { ReactElement } from 'react';
import { useTranslation } from 'react-i18next';

const ICONS: Record<string, ReactElement> = {
  success: <CheckCircleIcon fontSize="small" color="success" />,
  error: <CancelIcon fontSize="small" color="error" />,
  stopped: <StopCircleIcon fontSize="small" />,
  rejected: <CancelIcon fontSize="small" />,
  waiting_confirmation: <PauseCircleIcon fontSize="small" color="warning" />,
  waiting_approval: <HowToVoteIcon fontSize="small" color="warning" />,
  running: <CircularProgress size={14} />,
  starting: <CircularProgress size={14} />,
  stopping: <CircularProgress size={14} color="warning" />,
};

/** A task's status with its label (spec 4) and icon: green check, red cross, grey clock for the rest. */
export function TaskStatus({ status }: { status: string }) {
  const { t } = useTranslation();
  const known = [
    'waiting',
    'starting',
    'waiting_confirmation',
    'waiting_approval',
    'confirmed',
    'rejected',
    'running',
    'success',
    'error',
    'stopping',
    'stopped',
  ].includes(status);
  return (
    <Chip
      size="small"
      variant="outlined"
      icon={ICONS[status] ?? <HourglassIcon fontSize="small" />}
      label={known ? t(`taskStatus.${status}`) : t('taskStatus.unknown', { status })}
      color={status === 'success' ? 'success' : status === 'error' || !known ? 'error' : 'default'}
      data-testid="task-status"
      data-status={status}
    />
  );
}
