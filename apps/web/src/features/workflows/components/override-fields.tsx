import { MenuItem, Stack, TextField, Typography } from '@mui/material';
import type { Template, WorkflowNodeParams } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { projectQueries } from '../../../lib/project-queries';

/**
 * What a template node changes of its template's task, offering only what the template allows:
 * branch, limit, inventory, the variable group, and survey answers or extra variables (JSON).
 */
export function OverrideFields({
  projectId,
  nodeId,
  template,
  params,
  onChange,
}: {
  projectId: number;
  nodeId: string;
  template: Template;
  params: WorkflowNodeParams | null | undefined;
  onChange(p: WorkflowNodeParams): void;
}) {
  const { t } = useTranslation();
  const inventories = useQuery(projectQueries.inventories(projectId)).data ?? [];
  const groups = useQuery(projectQueries.environments(projectId)).data ?? [];
  const p = params ?? {};
  const set = (patch: Partial<WorkflowNodeParams>) => onChange({ ...p, ...patch });
  const vars = template.survey_vars.length > 0 || template.allow_extra_vars_in_task;
  const [json, setJson] = useState(p.environment ? JSON.stringify(p.environment, null, 2) : '');
  const [jsonError, setJsonError] = useState(false);
  useEffect(() => {
    setJson(params?.environment ? JSON.stringify(params.environment, null, 2) : '');
    setJsonError(false);
    // Only another node (or template) resets the text; typing keeps it as typed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [nodeId, template.id]);
  const commitJson = () => {
    if (!json.trim()) {
      setJsonError(false);
      set({ environment: null });
      return;
    }
    try {
      const v: unknown = JSON.parse(json);
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
      setJsonError(false);
      set({ environment: v as Record<string, unknown> });
    } catch {
      setJsonError(true);
    }
  };
  return (
    <Stack spacing={2} component="fieldset" sx={{ border: 0, p: 0, m: 0 }}>
      <Typography component="legend" variant="subtitle2" sx={{ mb: 1 }}>
        {t('workflows.overrides')}
      </Typography>
      {template.allow_override_branch_in_task ? (
        <TextField
          size="small"
          label={t('fieldLabels.branch')}
          value={p.git_branch ?? ''}
          onChange={(e) => set({ git_branch: e.target.value || null })}
        />
      ) : null}
      {template.task_params.allow_override_limit ? (
        <TextField
          size="small"
          label={t('fieldLabels.limit')}
          value={p.limit ?? ''}
          onChange={(e) => set({ limit: e.target.value || null })}
        />
      ) : null}
      {template.task_params.allow_override_inventory ? (
        <TextField
          select
          size="small"
          label={t('fieldLabels.inventory')}
          value={p.inventory_id ?? ''}
          onChange={(e) => set({ inventory_id: e.target.value === '' ? null : Number(e.target.value) })}
        >
          <MenuItem value="">{t('workflows.templateDefault')}</MenuItem>
          {inventories.map((i) => (
            <MenuItem key={i.id} value={i.id}>
              {i.name}
            </MenuItem>
          ))}
        </TextField>
      ) : null}
      <TextField
        select
        size="small"
        label={t('fieldLabels.variable_group')}
        value={p.environment_id ?? ''}
        onChange={(e) => set({ environment_id: e.target.value === '' ? null : Number(e.target.value) })}
      >
        <MenuItem value="">{t('workflows.templateDefault')}</MenuItem>
        {groups.map((g) => (
          <MenuItem key={g.id} value={g.id}>
            {g.name}
          </MenuItem>
        ))}
      </TextField>
      {vars ? (
        <TextField
          size="small"
          multiline
          minRows={3}
          label={t('workflows.variables')}
          value={json}
          error={jsonError}
          helperText={
            jsonError
              ? t('workflows.variablesInvalid')
              : template.survey_vars.length
                ? t('workflows.variablesSurvey', { names: template.survey_vars.map((v) => v.name).join(', ') })
                : t('workflows.variablesHelp')
          }
          onChange={(e) => setJson(e.target.value)}
          onBlur={commitJson}
          slotProps={{ htmlInput: { spellCheck: false, style: { fontFamily: 'monospace' } } }}
        />
      ) : null}
    </Stack>
  );
}
