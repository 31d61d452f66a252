import CancelIcon from '@mui/icons-material/Cancel';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import HowToVoteIcon from '@mui/icons-material/HowToVoteOutlined';
import type { ApprovalStatus as Status } from '@gantry/contracts';
import { Chip } from '@mui/material';
import { useTranslation } from 'react-i18next';

const ICONS = {
  pending: <HowToVoteIcon fontSize="small" color="warning" />,
  approved: <CheckCircleIcon fontSize="small" color="success" />,
  rejected: <CancelIcon fontSize="small" color="error" />,
};

/** An approval's state as a word and an icon (never colour alone). */
export function ApprovalStatus({ status }: { status: Status }) {
  const { t } = useTranslation();
  return (
    <Chip
      size="small"
      variant="outlined"
      icon={ICONS[status]}
      label={t(`approvals.status.${status}`)}
      color={status === 'approved' ? 'success' : status === 'rejected' ? 'error' : 'default'}
      data-testid="approval-status"
      data-status={status}
    />
  );
}
