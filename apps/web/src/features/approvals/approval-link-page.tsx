import LinkOffIcon from '@mui/icons-material/LinkOffOutlined';
import { Alert, Box, Button, CircularProgress, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { errorText } from '../../lib/error-text';
import { redeemLink } from './api/approvals-api';
import { approvalPath, approvalsInboxPath } from './approval-paths';

// A link is good once: the same token asked twice (React's strict mode mounts twice, a reload
// during the call) gets the one answer, not a "used" refusal from the second call.
const redeemed = new Map<string, ReturnType<typeof redeemLink>>();
const redeemOnce = (token: string) => {
  let p = redeemed.get(token);
  if (!p) {
    p = redeemLink(token);
    redeemed.set(token, p);
  }
  return p;
};

/**
 * /approvals/{id}?t={token}: where a notification's signed one-time link lands. The server checks
 * the token (signature, expiry, this user, unused) and names the approval; the console opens it.
 */
export function ApprovalLinkPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('t') ?? '';
  const [failure, setFailure] = useState<unknown>(null);
  useEffect(() => {
    if (!token) return;
    let live = true;
    redeemOnce(token).then(
      (r) => live && void navigate(approvalPath(r.project_id, r.approval_id), { replace: true }),
      (e: unknown) => live && setFailure(e),
    );
    return () => {
      live = false;
    };
  }, [token, navigate]);
  if (!token || failure)
    return (
      <Box>
        <EmptyState
          heading
          icon={<LinkOffIcon fontSize="large" />}
          title={t('approvals.linkFailed')}
          hint={t('approvals.linkFailedHint')}
          action={
            <Button component={RouterLink} to={approvalsInboxPath} variant="contained">
              {t('approvals.openInbox')}
            </Button>
          }
        />
        <Alert
          severity="error"
          variant="outlined"
          role="alert"
          sx={{ maxWidth: 640, mx: 'auto' }}
          data-testid="approval-link-error"
        >
          {failure ? errorText(failure) : t('approvals.linkIncomplete')}
        </Alert>
      </Box>
    );
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, py: 6, justifyContent: 'center' }} aria-busy="true">
      <CircularProgress size={24} aria-hidden="true" />
      <Typography component="h1" variant="h6">
        {t('approvals.linkOpening')}
      </Typography>
    </Box>
  );
}
