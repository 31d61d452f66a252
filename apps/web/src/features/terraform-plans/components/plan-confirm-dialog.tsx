import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Stack,
} from '@mui/material';
import { roleAtLeast, type PlanSummary } from '@gantry/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api-client';
import { errorText } from '../../../lib/error-text';
import { useProjectAccess } from '../../../lib/project-access';
import { roleName } from '../api/terraform-plans-api';
import { PlanCounts } from './plan-counts';
import { PolicyVerdictView } from './plan-view';

/**
 * Confirm a planned Terraform task: what the saved plan does (its counts and the policy's verdict),
 * and whether this user's role is enough when the policy asks for a higher one. The server decides;
 * its refusal is shown translated.
 */
export function PlanConfirmDialog({
  projectId,
  summary,
  onConfirm,
  onClose,
}: {
  projectId: number;
  summary: PlanSummary;
  onConfirm(): Promise<unknown>;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const access = useProjectAccess(projectId);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const needed = summary.policy?.confirm_role ?? null;
  const lacksRole = !!needed && access.loaded && !roleAtLeast(access.role || null, needed);
  const confirm = () => {
    setBusy(true);
    setError(null);
    onConfirm().then(
      () => onClose(),
      (e: unknown) => {
        setBusy(false);
        // The role the policy asks for, named in the user's language.
        const role = e instanceof ApiError && e.body?.code === 'confirm_role_required' ? e.body.role : null;
        setError(
          typeof role === 'string' ? t('terraformPlans.onlyRoleMayConfirm', { role: roleName(role) }) : errorText(e),
        );
      },
    );
  };
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth aria-describedby="plan-confirm-text">
      <DialogTitle>{t('terraformPlans.confirmTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={1.5}>
          <DialogContentText id="plan-confirm-text">{t('terraformPlans.confirmText')}</DialogContentText>
          <PlanCounts summary={summary} />
          {summary.policy && !summary.policy.passed ? <PolicyVerdictView policy={summary.policy} /> : null}
          {lacksRole ? (
            <Alert severity="warning">{t('terraformPlans.onlyRoleMayConfirm', { role: roleName(needed) })}</Alert>
          ) : null}
          {error ? <Alert severity="error">{error}</Alert> : null}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button variant="contained" color="success" disabled={busy} onClick={confirm}>
          {t('terraformPlans.confirmApply')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
