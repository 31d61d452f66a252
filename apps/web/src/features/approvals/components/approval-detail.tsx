import type { Approval } from '@gantry/contracts';
import { APPROVAL_COMMENT_MAX } from '@gantry/contracts';
import {
  Box,
  Button,
  Chip,
  Divider,
  Link,
  List,
  ListItem,
  ListItemText,
  Paper,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useLocation } from 'react-router';
import { FormError } from '../../../components/form-error';
import { useSnackbar } from '../../../components/snackbar';
import { formatDateTime } from '../../../lib/format';
import { useDecide, type Decision } from '../api/approvals-api';
import { workflowRunPath } from '../approval-paths';
import { ApprovalStatus } from './approval-status';
import { approveVotes, useApproversText, usePeople } from './approval-people';

/** One approval: what waits, who may decide, the votes so far, and (for an approver) the decision. */
export function ApprovalDetail({ approval: a }: { approval: Approval }) {
  const { t } = useTranslation();
  const approvers = useApproversText(a.project_id);
  const person = usePeople(a.project_id);
  const fact = (label: string, value: ReactNode, testId?: string) => (
    <Box sx={{ display: 'contents' }}>
      <Typography component="dt" variant="body2" color="text.secondary">
        {label}
      </Typography>
      <Typography component="dd" variant="body2" sx={{ m: 0, overflowWrap: 'anywhere' }} data-testid={testId}>
        {value}
      </Typography>
    </Box>
  );
  return (
    <Stack spacing={2}>
      <Paper variant="outlined" sx={{ p: 2 }}>
        <Box
          component="dl"
          sx={{
            display: 'grid',
            gridTemplateColumns: { xs: '1fr', sm: 'max-content 1fr' },
            columnGap: 3,
            rowGap: { xs: 0.25, sm: 1 },
            m: 0,
          }}
        >
          {fact(t('approvals.state'), <ApprovalStatus status={a.status} />)}
          {fact(t('approvals.what'), <WaitingLink a={a} />)}
          {fact(t('approvals.requester'), person(a.requester_id))}
          {fact(t('approvals.approvers'), approvers(a.approvers).join(' · ') || '—', 'approval-approvers')}
          {fact(
            t('approvals.votes'),
            t('approvals.votesOf', { n: approveVotes(a), total: a.required_approvals }),
            'approval-votes',
          )}
          {fact(t('approvals.selfApproval'), a.allow_self_approval ? t('common.yes') : t('common.no'))}
          {fact(t('approvals.created'), formatDateTime(a.created))}
          {fact(
            t('approvals.deadline'),
            a.deadline
              ? t(a.on_timeout === 'approve' ? 'approvals.deadlineApprove' : 'approvals.deadlineReject', {
                  when: formatDateTime(a.deadline),
                })
              : t('approvals.noDeadline'),
          )}
          {a.decided
            ? fact(
                t('approvals.decided'),
                t('approvals.decidedBy', { when: formatDateTime(a.decided), who: decidedBy(a.decided_by, t) }),
              )
            : null}
        </Box>
      </Paper>
      <Votes a={a} />
      {a.status === 'pending' ? (
        a.can_decide ? (
          <DecisionForm a={a} />
        ) : (
          <Typography color="text.secondary">{t('approvals.notYours')}</Typography>
        )
      ) : null}
    </Stack>
  );
}

/** "timeout" and "canceled" are the server's words for no person: said in the user's language. */
function decidedBy(who: string | null, t: (k: string) => string): string {
  if (who === 'timeout') return t('approvals.byTimeout');
  if (who === 'canceled') return t('approvals.byCancel');
  return who ?? '—';
}

/** What waits for the approval: a task (its log opens over this page) or a workflow run. */
function WaitingLink({ a }: { a: Approval }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  if (a.workflow_run_id && a.workflow_id)
    return (
      <Link component={RouterLink} to={workflowRunPath(a.project_id, a.workflow_id, a.workflow_run_id)}>
        {t('approvals.openRun', { title: a.title })}
      </Link>
    );
  if (a.task_id)
    return (
      <Link component={RouterLink} to={`${pathname}?t=${a.task_id}`}>
        {a.title}
      </Link>
    );
  return <>{a.title}</>;
}

function Votes({ a }: { a: Approval }) {
  const { t } = useTranslation();
  return (
    <Box component="section" aria-labelledby={`votes-${a.id}`}>
      <Typography variant="subtitle1" component="h2" id={`votes-${a.id}`} sx={{ fontWeight: 600, mb: 1 }}>
        {t('approvals.votesTitle')}
      </Typography>
      {a.votes.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {t('approvals.noVotes')}
        </Typography>
      ) : (
        <Paper variant="outlined">
          <List dense disablePadding data-testid="approval-votes-list">
            {a.votes.map((v, i) => (
              <Box key={v.user_id}>
                {i ? <Divider component="li" /> : null}
                <ListItem data-testid="approval-vote">
                  <ListItemText
                    primary={
                      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
                        <span>{v.username}</span>
                        <Chip
                          size="small"
                          variant="outlined"
                          color={v.decision === 'approve' ? 'success' : 'error'}
                          label={t(`approvals.vote.${v.decision}`)}
                        />
                        <Typography variant="caption" color="text.secondary">
                          {formatDateTime(v.created)}
                        </Typography>
                      </Stack>
                    }
                    secondary={v.comment || t('approvals.noComment')}
                    slotProps={{ secondary: { sx: { overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' } } }}
                  />
                </ListItem>
              </Box>
            ))}
          </List>
        </Paper>
      )}
    </Box>
  );
}

/** Approve or reject, with a comment kept in the history; refusals show in the user's language. */
function DecisionForm({ a }: { a: Approval }) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const [comment, setComment] = useState('');
  const decide = useDecide(a.project_id, a.id);
  // The promise, not mutate's callbacks: a decided approval replaces this form, which unmounts it.
  const send = (decision: Decision) =>
    decide.mutateAsync({ decision, comment: comment.trim() }).then(
      () => snackbar.success(t(decision === 'approve' ? 'approvals.approvedDone' : 'approvals.rejectedDone')),
      () => undefined, // shown above the form (decide.error)
    );
  return (
    <Paper variant="outlined" sx={{ p: 2 }} component="section" aria-labelledby={`decide-${a.id}`}>
      <Typography variant="subtitle1" component="h2" id={`decide-${a.id}`} sx={{ fontWeight: 600, mb: 1 }}>
        {t('approvals.decideTitle')}
      </Typography>
      <FormError error={decide.error} />
      <TextField
        label={t('approvals.comment')}
        value={comment}
        onChange={(e) => setComment(e.target.value)}
        multiline
        minRows={2}
        fullWidth
        slotProps={{ htmlInput: { maxLength: APPROVAL_COMMENT_MAX } }}
        helperText={t('approvals.commentHelp')}
      />
      <Stack direction="row" spacing={1} sx={{ mt: 2, flexWrap: 'wrap', rowGap: 1 }}>
        <Button variant="contained" color="success" disabled={decide.isPending} onClick={() => void send('approve')}>
          {t('approvals.approve')}
        </Button>
        <Button variant="outlined" color="error" disabled={decide.isPending} onClick={() => void send('reject')}>
          {t('approvals.reject')}
        </Button>
      </Stack>
    </Paper>
  );
}
