import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import {
  Alert,
  AlertTitle,
  Box,
  Button,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import type { PlanConfirmation, PlanResource, PlanSummary } from '@gantry/contracts';
import { Fragment, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/format';
import { planValue, reasonText, roleName } from '../api/terraform-plans-api';
import { ActionIcon, PlanCounts } from './plan-counts';

/** The policy's verdict on a plan: its failed rules (translated), or who must confirm it. */
export function PolicyVerdictView({ policy }: { policy: PlanSummary['policy'] }) {
  const { t } = useTranslation();
  if (!policy) return null;
  if (!policy.passed) {
    return (
      <Alert severity="error" data-testid="policy-verdict">
        <AlertTitle>{t('terraformPlans.policyFailed')}</AlertTitle>
        <Box component="ul" sx={{ m: 0, pl: 2.5 }}>
          {policy.reasons.map((r, i) => (
            <li key={i}>{reasonText(r)}</li>
          ))}
        </Box>
      </Alert>
    );
  }
  return (
    <Alert severity="success" data-testid="policy-verdict">
      {t('terraformPlans.policyPassed')}
      {policy.confirm_role ? ` ${t('terraformPlans.confirmRoleNeeded', { role: roleName(policy.confirm_role) })}` : ''}
    </Alert>
  );
}

function ChangesTable({ resource }: { resource: PlanResource }) {
  const { t } = useTranslation();
  if (!resource.changes.length) {
    return (
      <Typography variant="body2" color="text.secondary" sx={{ py: 1 }}>
        {t('terraformPlans.noAttributeChanges')}
      </Typography>
    );
  }
  const mono = { fontFamily: 'monospace', fontSize: 12, overflowWrap: 'anywhere', verticalAlign: 'top' } as const;
  return (
    <Table size="small" aria-label={t('terraformPlans.changesOf', { address: resource.address })}>
      <TableHead>
        <TableRow>
          <TableCell>{t('terraformPlans.attribute')}</TableCell>
          <TableCell>{t('terraformPlans.before')}</TableCell>
          <TableCell>{t('terraformPlans.after')}</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {resource.changes.map((c) => (
          <TableRow key={c.path}>
            <TableCell sx={mono}>{c.path}</TableCell>
            <TableCell sx={mono}>{planValue(c.before)}</TableCell>
            <TableCell sx={mono}>{planValue(c.after)}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** A saved plan: counts, resources (each expands into its attribute changes), outputs, the policy's verdict, who confirmed. */
export function PlanView({ summary, confirmation }: { summary: PlanSummary; confirmation?: PlanConfirmation | null }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState<Set<string>>(new Set());
  const toggle = (address: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (next.has(address)) next.delete(address);
      else next.add(address);
      return next;
    });
  return (
    <Stack spacing={1.5} data-testid="plan-view">
      {summary.refresh_only ? (
        <Typography variant="body2" color="text.secondary">
          {t('terraformPlans.refreshOnlyPlan')}
        </Typography>
      ) : null}
      <PlanCounts summary={summary} />
      <PolicyVerdictView policy={summary.policy} />
      {confirmation ? (
        <Typography variant="body2" data-testid="plan-confirmed-by">
          {t('terraformPlans.confirmedBy', {
            name: confirmation.user_name ?? '—',
            at: formatDateTime(confirmation.at),
          })}
        </Typography>
      ) : null}
      {summary.resources.length ? (
        <Box sx={{ overflowX: 'auto' }}>
          <Table size="small" aria-label={t('terraformPlans.resources')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('terraformPlans.address')}</TableCell>
                <TableCell>{t('terraformPlans.action')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {summary.resources.map((r) => {
                const expanded = open.has(r.address);
                const id = `plan-changes-${r.address.replace(/[^A-Za-z0-9_-]/g, '_')}`;
                return (
                  <Fragment key={r.address}>
                    <TableRow>
                      <TableCell sx={{ overflowWrap: 'anywhere' }}>
                        <Button
                          size="small"
                          aria-expanded={expanded}
                          aria-controls={expanded ? id : undefined}
                          onClick={() => toggle(r.address)}
                          startIcon={expanded ? <ExpandMoreIcon /> : <ChevronRightIcon />}
                          sx={{
                            textTransform: 'none',
                            fontFamily: 'monospace',
                            justifyContent: 'flex-start',
                            textAlign: 'left',
                            overflowWrap: 'anywhere',
                            color: 'text.primary',
                          }}
                        >
                          {r.address}
                        </Button>
                      </TableCell>
                      <TableCell>
                        <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
                          <ActionIcon action={r.action} />
                          <span>{t(`terraformPlans.actions.${r.action}`)}</span>
                        </Stack>
                      </TableCell>
                    </TableRow>
                    {expanded ? (
                      <TableRow id={id}>
                        <TableCell colSpan={2} sx={{ bgcolor: 'action.hover' }}>
                          <ChangesTable resource={r} />
                        </TableCell>
                      </TableRow>
                    ) : null}
                  </Fragment>
                );
              })}
            </TableBody>
          </Table>
        </Box>
      ) : (
        <Typography variant="body2" color="text.secondary">
          {t('terraformPlans.noChanges')}
        </Typography>
      )}
      {summary.truncated ? (
        <Typography variant="body2" color="text.secondary">
          {t('terraformPlans.truncated', { count: summary.resources.length })}
        </Typography>
      ) : null}
      {summary.output_changes.length ? (
        <Box>
          <Typography variant="subtitle2">{t('terraformPlans.outputChanges')}</Typography>
          <Typography variant="body2" sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }}>
            {summary.output_changes.join(', ')}
          </Typography>
        </Box>
      ) : null}
    </Stack>
  );
}
