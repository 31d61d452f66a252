import CancelIcon from '@mui/icons-material/Cancel';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import HowToVoteIcon from '@mui/icons-material/HowToVoteOutlined';
import { Box, Chip, Link, Stack, Typography } from '@mui/material';
import type { Approval, ApprovalVote } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { formatDateTime } from '../../../lib/format';
import { taskApprovalQuery } from '../api/task-approval-api';

const ICONS = {
  pending: <HowToVoteIcon fontSize="small" color="warning" />,
  approved: <CheckCircleIcon fontSize="small" color="success" />,
  rejected: <CancelIcon fontSize="small" color="error" />,
};

/** The approvals feature's page of one approval (features do not import each other). */
const approvalHref = (projectId: number, id: number) => `/project/${projectId}/approvals/${id}`;

/**
 * In the task log: the approval the task waits for or went through (its template's policy) —
 * its state, how many approvals it needs, each vote with its comment, and a link to decide it on
 * its own page. Nothing for a task without one.
 */
export function TaskApproval({ projectId, taskId, status }: { projectId: number; taskId: number; status?: string }) {
  const approval = useQuery(taskApprovalQuery(projectId, taskId, status)).data;
  return approval ? <ApprovalSummary a={approval} /> : null;
}

function ApprovalSummary({ a }: { a: Approval }) {
  const { t } = useTranslation();
  const approvals = a.votes.filter((v) => v.decision === 'approve').length;
  const titleId = `task-approval-${a.id}`;
  return (
    <Box
      component="section"
      aria-labelledby={titleId}
      data-testid="task-approval"
      sx={{ border: 1, borderColor: 'divider', borderRadius: 1, px: 1.5, py: 1, flexShrink: 0 }}
    >
      <Stack direction="row" sx={{ alignItems: 'center', flexWrap: 'wrap', columnGap: 1.5, rowGap: 0.5 }}>
        <Typography id={titleId} variant="subtitle2" component="h3">
          {t('tasks.approvalTitle')}
        </Typography>
        <Chip
          size="small"
          variant="outlined"
          icon={ICONS[a.status]}
          label={t(`approvals.status.${a.status}`)}
          color={a.status === 'approved' ? 'success' : a.status === 'rejected' ? 'error' : 'default'}
          data-testid="task-approval-status"
          data-status={a.status}
        />
        <Typography variant="body2" color="text.secondary" data-testid="task-approval-count">
          {t('approvals.votesOf', { n: approvals, total: a.required_approvals })}
        </Typography>
        {a.decided_by === 'timeout' || a.decided_by === 'canceled' ? (
          <Typography variant="body2" color="text.secondary">
            {t('approvals.decidedBy', {
              when: formatDateTime(a.decided ?? a.created),
              who: t(a.decided_by === 'timeout' ? 'approvals.byTimeout' : 'approvals.byCancel'),
            })}
          </Typography>
        ) : null}
        <Link component={RouterLink} to={approvalHref(a.project_id, a.id)} variant="body2" sx={{ ml: 'auto' }}>
          {t('tasks.approvalOpen', { id: a.id })}
        </Link>
      </Stack>
      {a.votes.length === 0 ? (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5 }}>
          {t('approvals.noVotes')}
        </Typography>
      ) : (
        <Box component="ul" sx={{ m: 0, mt: 0.5, p: 0, listStyle: 'none' }}>
          {a.votes.map((v) => (
            <VoteLine key={v.user_id} v={v} />
          ))}
        </Box>
      )}
    </Box>
  );
}

function VoteLine({ v }: { v: ApprovalVote }) {
  const { t } = useTranslation();
  return (
    <Typography component="li" variant="body2" data-testid="task-approval-vote" sx={{ overflowWrap: 'anywhere' }}>
      <Box component="span" sx={{ fontWeight: 600 }}>
        {v.username}
      </Box>{' '}
      <Box component="span" sx={{ color: v.decision === 'approve' ? 'success.main' : 'error.main' }}>
        {t(`approvals.vote.${v.decision}`)}
      </Box>{' '}
      <Box component="span" sx={{ color: 'text.secondary' }}>
        {formatDateTime(v.created)}
      </Box>
      {' · '}
      <Box component="span" sx={{ whiteSpace: 'pre-wrap', fontStyle: v.comment ? undefined : 'italic' }}>
        {v.comment || t('approvals.noComment')}
      </Box>
    </Typography>
  );
}
