import type { Approval } from '@gantry/contracts';
import {
  Box,
  Link,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
  useMediaQuery,
  useTheme,
} from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { formatDateTime } from '../../../lib/format';
import { useProjects } from '../../../lib/session';
import { approvalPath, projectApprovalsPath } from '../approval-paths';
import { ApprovalStatus } from './approval-status';
import { approveVotes, usePeople } from './approval-people';

/**
 * Approvals as a table: each title opens the approval. The inbox spans projects (`showProject`:
 * a column naming each, linking to that project's approvals); a project's list shows the state.
 */
export function ApprovalsTable({
  approvals,
  showProject = false,
  label,
}: {
  approvals: Approval[];
  showProject?: boolean;
  label: string;
}) {
  const { t } = useTranslation();
  // A phone gets one card per approval: a table of six columns would scroll sideways.
  const phone = useMediaQuery(useTheme().breakpoints.down('sm'), { noSsr: true });
  if (phone)
    return (
      <Stack
        component="ul"
        aria-label={label}
        spacing={1}
        sx={{ listStyle: 'none', p: 0, m: 0 }}
        data-testid="approvals-table"
      >
        {approvals.map((a) => (
          <ApprovalCard key={a.id} a={a} showProject={showProject} />
        ))}
      </Stack>
    );
  return (
    <Paper variant="outlined">
      <TableContainer>
        <Table size="small" aria-label={label} data-testid="approvals-table">
          <TableHead>
            <TableRow>
              <TableCell sx={{ fontWeight: 600 }}>{t('approvals.what')}</TableCell>
              {showProject ? <TableCell sx={{ fontWeight: 600 }}>{t('approvals.project')}</TableCell> : null}
              <TableCell sx={{ fontWeight: 600 }}>{t('approvals.requester')}</TableCell>
              <TableCell sx={{ fontWeight: 600 }}>{t('approvals.created')}</TableCell>
              <TableCell sx={{ fontWeight: 600 }}>{t('approvals.deadline')}</TableCell>
              <TableCell sx={{ fontWeight: 600 }}>{t('approvals.votes')}</TableCell>
              {showProject ? null : <TableCell sx={{ fontWeight: 600 }}>{t('approvals.state')}</TableCell>}
            </TableRow>
          </TableHead>
          <TableBody>
            {approvals.map((a) => (
              <ApprovalRow key={a.id} a={a} showProject={showProject} />
            ))}
          </TableBody>
        </Table>
      </TableContainer>
    </Paper>
  );
}

function ApprovalRow({ a, showProject }: { a: Approval; showProject: boolean }) {
  const { t } = useTranslation();
  const person = usePeople(a.project_id);
  const project = useProjects().find((p) => p.id === a.project_id);
  return (
    <TableRow data-testid="approval-row" data-approval-id={a.id}>
      <TableCell sx={{ overflowWrap: 'anywhere', minWidth: 160 }}>
        <Link component={RouterLink} to={approvalPath(a.project_id, a.id)}>
          {a.title}
        </Link>
      </TableCell>
      {showProject ? (
        <TableCell>
          <Link component={RouterLink} to={projectApprovalsPath(a.project_id)}>
            {project?.name ?? `#${a.project_id}`}
          </Link>
        </TableCell>
      ) : null}
      <TableCell>{person(a.requester_id)}</TableCell>
      <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(a.created)}</TableCell>
      <TableCell sx={{ whiteSpace: 'nowrap' }}>
        {a.deadline ? formatDateTime(a.deadline) : t('approvals.noDeadline')}
      </TableCell>
      <TableCell sx={{ whiteSpace: 'nowrap' }} data-testid="approval-votes">
        {t('approvals.votesOf', { n: approveVotes(a), total: a.required_approvals })}
      </TableCell>
      {showProject ? null : (
        <TableCell>
          <ApprovalStatus status={a.status} />
        </TableCell>
      )}
    </TableRow>
  );
}

/** An approval on a phone: its title (the link), then the facts of the table's columns as lines. */
function ApprovalCard({ a, showProject }: { a: Approval; showProject: boolean }) {
  const { t } = useTranslation();
  const person = usePeople(a.project_id);
  const project = useProjects().find((p) => p.id === a.project_id);
  const line = (label: string, value: ReactNode) => (
    <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
      <Box component="span" sx={{ color: 'text.secondary' }}>
        {label}:
      </Box>{' '}
      {value}
    </Typography>
  );
  return (
    <Paper component="li" variant="outlined" sx={{ p: 1.5 }} data-testid="approval-row" data-approval-id={a.id}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start', justifyContent: 'space-between', mb: 0.5 }}>
        <Link
          component={RouterLink}
          to={approvalPath(a.project_id, a.id)}
          sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}
        >
          {a.title}
        </Link>
        {showProject ? null : <ApprovalStatus status={a.status} />}
      </Stack>
      {showProject
        ? line(
            t('approvals.project'),
            <Link component={RouterLink} to={projectApprovalsPath(a.project_id)}>
              {project?.name ?? `#${a.project_id}`}
            </Link>,
          )
        : null}
      {line(t('approvals.requester'), person(a.requester_id))}
      {line(t('approvals.created'), formatDateTime(a.created))}
      {line(t('approvals.deadline'), a.deadline ? formatDateTime(a.deadline) : t('approvals.noDeadline'))}
      {line(t('approvals.votes'), t('approvals.votesOf', { n: approveVotes(a), total: a.required_approvals }))}
    </Paper>
  );
}
