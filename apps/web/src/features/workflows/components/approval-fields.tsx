import { Autocomplete, Checkbox, FormControlLabel, MenuItem, Stack, TextField } from '@mui/material';
import { PROJECT_ROLES, type ProjectRole, type WorkflowNode } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { projectQueries } from '../../../lib/project-queries';
import { NumberField } from './number-field';

/** An approval node's approvers (team users, project roles, directory groups), how many must approve, and self approval. */
export function ApprovalFields({
  projectId,
  node,
  onChange,
}: {
  projectId: number;
  node: WorkflowNode;
  onChange(patch: Partial<WorkflowNode>): void;
}) {
  const { t } = useTranslation();
  const team = useQuery(projectQueries.team(projectId)).data ?? [];
  const approvers = node.approvers ?? { users: [], roles: [], groups: [] };
  const set = (patch: Partial<typeof approvers>) => onChange({ approvers: { ...approvers, ...patch } });
  const byId = new Map(team.map((u) => [u.id, u]));
  return (
    <Stack spacing={2}>
      <Autocomplete
        multiple
        size="small"
        options={team.map((u) => u.id)}
        value={approvers.users}
        getOptionLabel={(id) => (byId.get(id) ? `${byId.get(id)!.name} (${byId.get(id)!.username})` : `#${id}`)}
        onChange={(_, v) => set({ users: v })}
        renderInput={(p) => <TextField {...p} label={t('workflows.approverUsers')} />}
      />
      <Autocomplete
        multiple
        size="small"
        options={[...PROJECT_ROLES]}
        value={approvers.roles}
        getOptionLabel={(r: ProjectRole) => t(`roles.${r}`)}
        onChange={(_, v) => set({ roles: v })}
        renderInput={(p) => <TextField {...p} label={t('workflows.approverRoles')} />}
      />
      <Autocomplete
        multiple
        freeSolo
        size="small"
        options={[] as string[]}
        value={approvers.groups}
        onChange={(_, v) => set({ groups: v.map((g) => g.trim()).filter(Boolean) })}
        renderInput={(p) => (
          <TextField {...p} label={t('workflows.approverGroups')} helperText={t('workflows.approverGroupsHelp')} />
        )}
      />
      <NumberField
        id={`${node.id}-required`}
        label={t('fieldLabels.required_approvals')}
        min={1}
        value={node.required_approvals ?? 1}
        onChange={(v) => onChange({ required_approvals: v })}
      />
      <FormControlLabel
        control={
          <Checkbox
            checked={node.allow_self_approval}
            onChange={(e) => onChange({ allow_self_approval: e.target.checked })}
          />
        }
        label={t('workflows.allowSelfApproval')}
      />
      <TextField
        select
        size="small"
        label={t('workflows.onTimeout')}
        value={node.on_timeout}
        onChange={(e) => onChange({ on_timeout: e.target.value as 'reject' | 'approve' })}
      >
        <MenuItem value="reject">{t('workflows.timeoutReject')}</MenuItem>
        <MenuItem value="approve">{t('workflows.timeoutApprove')}</MenuItem>
      </TextField>
    </Stack>
  );
}
