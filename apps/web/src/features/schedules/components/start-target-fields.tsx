import { FormControl, FormControlLabel, FormLabel, MenuItem, Radio, RadioGroup, TextField } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { projectQueries } from '../../../lib/project-queries';
import { workflowChoicesQuery, type StartKind } from '../api/workflow-choices';

interface Props {
  projectId: number;
  kind: StartKind;
  onKind(kind: StartKind): void;
  templateId: number | '';
  onTemplate(id: number): void;
  workflowId: number | '';
  onWorkflow(id: number): void;
  templateError?: string;
  workflowError?: string;
}

/**
 * "Runs: Template | Workflow" and the picker of the chosen kind, for the schedule and the
 * integration forms. Only the chosen one is sent; the other is cleared by the form.
 */
export function StartTargetFields(p: Props) {
  const { t } = useTranslation();
  const labelId = useId();
  const templates = useQuery({ ...projectQueries.templates(p.projectId), enabled: p.kind === 'template' }).data ?? [];
  const workflows = useQuery({ ...workflowChoicesQuery(p.projectId), enabled: p.kind === 'workflow' }).data ?? [];
  return (
    <>
      <FormControl>
        <FormLabel id={labelId}>{t('startTarget.runs')}</FormLabel>
        <RadioGroup
          row
          aria-labelledby={labelId}
          value={p.kind}
          onChange={(e) => p.onKind(e.target.value as StartKind)}
        >
          <FormControlLabel value="template" control={<Radio size="small" />} label={t('startTarget.kindTemplate')} />
          <FormControlLabel value="workflow" control={<Radio size="small" />} label={t('startTarget.kindWorkflow')} />
        </RadioGroup>
      </FormControl>
      {p.kind === 'template' ? (
        <TextField
          select
          name="template_id"
          label={t('startTarget.template')}
          required
          value={p.templateId}
          onChange={(e) => p.onTemplate(Number(e.target.value))}
          error={!!p.templateError}
          helperText={p.templateError ?? ' '}
        >
          {templates.map((x) => (
            <MenuItem key={x.id} value={x.id}>
              {x.name}
            </MenuItem>
          ))}
        </TextField>
      ) : (
        <TextField
          select
          name="workflow_id"
          label={t('startTarget.workflow')}
          required
          value={p.workflowId}
          onChange={(e) => p.onWorkflow(Number(e.target.value))}
          error={!!p.workflowError}
          helperText={p.workflowError ?? (workflows.length ? ' ' : t('startTarget.noWorkflows'))}
        >
          {workflows.map((x) => (
            <MenuItem key={x.id} value={x.id}>
              {x.name}
            </MenuItem>
          ))}
        </TextField>
      )}
    </>
  );
}

/** Where a schedule's or integration's list row links: its workflow's editor or its template. */
export function startTargetPath(projectId: number, row: { template_id: number; workflow_id: number | null }): string {
  return row.workflow_id
    ? `/project/${projectId}/workflows/${row.workflow_id}`
    : `/project/${projectId}/templates/${row.template_id}`;
}
