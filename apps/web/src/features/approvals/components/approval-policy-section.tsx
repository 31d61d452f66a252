import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import {
  Accordion,
  AccordionDetails,
  AccordionSummary,
  Autocomplete,
  Checkbox,
  FormControlLabel,
  MenuItem,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import { PROJECT_ROLES, type ApprovalPolicy, type ProjectRole } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { projectQueries } from '../../../lib/project-queries';
import { DEFAULT_POLICY } from './approval-policy';

const MAX_TIMEOUT_MINUTES = 7 * 24 * 60;

/**
 * The template form's "Approval" section: whether its tasks wait for approval before they start,
 * who approves (team users, project roles, mapped directory groups), how many must, whether the
 * one who started the task may, and what a timeout means. Open at once when the template has a
 * policy or a problem in it.
 */
export function ApprovalPolicySection({
  projectId,
  policy,
  onChange,
  errors,
}: {
  projectId: number;
  policy: ApprovalPolicy | null;
  onChange(policy: ApprovalPolicy | null): void;
  /** Problems by field (approvers, required_approvals, timeout_seconds...). */
  errors: Record<string, string>;
}) {
  const { t } = useTranslation();
  const id = useId();
  const hasErrors = Object.keys(errors).length > 0;
  const [expanded, setExpanded] = useState(!!policy);
  const team = useQuery(projectQueries.team(projectId)).data ?? [];
  const byId = new Map(team.map((u) => [u.id, u]));
  // Groups the team's memberships came from: offered, while any other group name may be typed.
  const knownGroups = [...new Set(team.flatMap((u) => (u.mapped ? [u.mapped.group] : [])))];
  const p = policy ?? DEFAULT_POLICY;
  const set = (patch: Partial<ApprovalPolicy>) => onChange({ ...p, ...patch });
  const setApprovers = (patch: Partial<ApprovalPolicy['approvers']>) =>
    set({ approvers: { ...p.approvers, ...patch } });
  const minutes = p.timeout_seconds ? String(Math.round(p.timeout_seconds / 60)) : '';
  return (
    <Accordion
      expanded={expanded || hasErrors}
      onChange={(_e, open) => setExpanded(open)}
      disableGutters
      variant="outlined"
      data-testid="approval-policy-section"
      sx={{ '&::before': { display: 'none' } }}
    >
      <AccordionSummary expandIcon={<ExpandMoreIcon />} aria-controls={`${id}-panel`} id={`${id}-header`}>
        <Stack>
          <Typography variant="subtitle2" component="span">
            {t('approvals.policy.title')}
          </Typography>
          <Typography variant="caption" color="text.secondary" component="span">
            {policy
              ? t('approvals.policy.summaryOn', { n: policy.required_approvals })
              : t('approvals.policy.summaryOff')}
          </Typography>
        </Stack>
      </AccordionSummary>
      <AccordionDetails id={`${id}-panel`}>
        <Stack spacing={2}>
          <FormControlLabel
            control={
              <Switch
                checked={!!policy}
                onChange={(e) => onChange(e.target.checked ? (policy ?? DEFAULT_POLICY) : null)}
              />
            }
            label={t('approvals.policy.enabled')}
          />
          {policy ? (
            <>
              <Autocomplete
                multiple
                size="small"
                options={team.map((u) => u.id)}
                value={p.approvers.users}
                getOptionLabel={(uid) => {
                  const u = byId.get(uid);
                  return u ? `${u.name} (${u.username})` : `#${uid}`;
                }}
                onChange={(_e, users) => setApprovers({ users })}
                renderInput={(params) => (
                  <TextField
                    {...params}
                    label={t('approvals.policy.users')}
                    error={!!errors.approvers}
                    helperText={errors.approvers ?? t('approvals.policy.approversHelp')}
                  />
                )}
              />
              <Autocomplete
                multiple
                size="small"
                options={[...PROJECT_ROLES]}
                value={p.approvers.roles}
                getOptionLabel={(r: ProjectRole) => t(`roles.${r}`)}
                onChange={(_e, roles) => setApprovers({ roles })}
                renderInput={(params) => <TextField {...params} label={t('approvals.policy.roles')} />}
              />
              <Autocomplete
                multiple
                freeSolo
                size="small"
                options={knownGroups}
                value={p.approvers.groups}
                onChange={(_e, groups) => setApprovers({ groups: groups.map((g) => g.trim()).filter(Boolean) })}
                renderInput={(params) => (
                  <TextField
                    {...params}
                    label={t('approvals.policy.groups')}
                    helperText={t('approvals.policy.groupsHelp')}
                  />
                )}
              />
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                <TextField
                  size="small"
                  type="number"
                  label={t('approvals.policy.required')}
                  value={p.required_approvals}
                  onChange={(e) => set({ required_approvals: Math.trunc(Number(e.target.value)) })}
                  slotProps={{ htmlInput: { min: 1, max: 100, step: 1 } }}
                  error={!!errors.required_approvals}
                  helperText={errors.required_approvals}
                  sx={{ minWidth: 200 }}
                />
                <TextField
                  size="small"
                  type="number"
                  label={t('approvals.policy.timeoutMinutes')}
                  value={minutes}
                  onChange={(e) =>
                    set({ timeout_seconds: e.target.value === '' ? null : Math.trunc(Number(e.target.value)) * 60 })
                  }
                  slotProps={{ htmlInput: { min: 1, max: MAX_TIMEOUT_MINUTES, step: 1 } }}
                  error={!!errors.timeout_seconds}
                  helperText={
                    errors.timeout_seconds
                      ? t('approvals.policy.timeoutRange', { max: MAX_TIMEOUT_MINUTES })
                      : t('approvals.policy.timeoutHelp')
                  }
                  sx={{ minWidth: 200 }}
                />
                <TextField
                  select
                  size="small"
                  label={t('approvals.policy.onTimeout')}
                  value={p.on_timeout}
                  disabled={!p.timeout_seconds}
                  onChange={(e) => set({ on_timeout: e.target.value as ApprovalPolicy['on_timeout'] })}
                  sx={{ minWidth: 200 }}
                >
                  <MenuItem value="reject">{t('approvals.onTimeout.reject')}</MenuItem>
                  <MenuItem value="approve">{t('approvals.onTimeout.approve')}</MenuItem>
                </TextField>
              </Stack>
              <FormControlLabel
                control={
                  <Checkbox
                    checked={p.allow_self_approval}
                    onChange={(e) => set({ allow_self_approval: e.target.checked })}
                  />
                }
                label={t('approvals.policy.selfApproval')}
              />
            </>
          ) : null}
        </Stack>
      </AccordionDetails>
    </Accordion>
  );
}
