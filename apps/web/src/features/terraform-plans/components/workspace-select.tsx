import { MenuItem, TextField } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { projectQueries } from '../../../lib/project-queries';
import { templateWorkspacesQuery } from '../../templates/api/workspaces-api';

/** The workspaces a drift check may plan: the template's attached ones (the default marked); hidden when it has fewer than two. */
export function useDriftWorkspaces(projectId: number, templateId: number | '') {
  const template = useQuery(projectQueries.templates(projectId)).data?.find((x) => x.id === templateId);
  const workspaces = useQuery({
    ...templateWorkspacesQuery(projectId, Number(templateId)),
    enabled: !!templateId,
  }).data;
  return { workspaces: workspaces ?? [], defaultId: template?.inventory_id ?? null };
}

/** Which of its template's workspaces a drift check plans ('' until the list is known: the template's default). */
export function WorkspaceSelect({
  projectId,
  templateId,
  value,
  error,
  onChange,
}: {
  projectId: number;
  templateId: number;
  value: number | '';
  error?: string;
  onChange(id: number): void;
}) {
  const { t } = useTranslation();
  const { workspaces, defaultId } = useDriftWorkspaces(projectId, templateId);
  if (workspaces.length < 2) return null;
  const shown = value || defaultId || '';
  return (
    <TextField
      select
      fullWidth
      label={t('fieldLabels.workspace')}
      value={workspaces.some((w) => w.id === shown) ? shown : ''}
      onChange={(e) => onChange(Number(e.target.value))}
      error={!!error}
      helperText={error ?? ' '}
    >
      {workspaces.map((w) => (
        <MenuItem key={w.id} value={w.id}>
          {w.id === defaultId ? `${w.name} (${t('workspaces.default')})` : w.name}
        </MenuItem>
      ))}
    </TextField>
  );
}
