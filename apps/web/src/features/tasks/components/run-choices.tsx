import { MenuItem, Stack, TextField } from '@mui/material';
import type { Template } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { projectQueries } from '../../../lib/project-queries';

/** A task's run-time choices; '' (or an empty branch) means the template's own. */
export interface RunChoiceValues {
  environmentId: number | '';
  inventoryId: number | '';
  branch: string;
}

const isWorkspaceApp = (app: string) => app === 'terraform' || app === 'tofu';

/** Only what the template lets a task choose: the body fields of a new task (null: the template's). */
export function runChoicesBody(template: Template, v: RunChoiceValues) {
  return {
    environment_id: (template.task_params.allow_override_environment && v.environmentId) || null,
    inventory_id: (template.task_params.allow_override_inventory && v.inventoryId) || null,
    git_branch: (template.allow_override_branch_in_task && v.branch) || null,
  };
}

/**
 * The New task form's variable group, inventory (workspace for Terraform/OpenTofu) and branch:
 * each shown only when the template allows choosing it, limited to the template's list when it
 * has one. A re-run's earlier choice that is no longer offered is left out of the options.
 */
export function RunChoices({
  projectId,
  template,
  value,
  onChange,
}: {
  projectId: number;
  template: Template;
  value: RunChoiceValues;
  onChange(v: RunChoiceValues): void;
}) {
  const { t } = useTranslation();
  const tp = template.task_params;
  const workspaces = isWorkspaceApp(template.app);
  const mayInventory = tp.allow_override_inventory && (template.app === 'ansible' || workspaces);
  const groups =
    useQuery({ ...projectQueries.environments(projectId), enabled: tp.allow_override_environment }).data ?? [];
  const inventories = useQuery({ ...projectQueries.inventories(projectId), enabled: mayInventory }).data ?? [];
  const offered = <T extends { id: number }>(rows: T[], choices: number[]) =>
    choices.length ? choices.flatMap((id) => rows.filter((r) => r.id === id)) : rows;
  const groupOptions = offered(groups, tp.environment_choices);
  const inventoryOptions = offered(
    inventories.filter((i) => (workspaces ? i.type === `${template.app}-workspace` : !i.type.endsWith('-workspace'))),
    tp.inventory_choices,
  );
  const select = (
    label: string,
    current: number | '',
    options: Array<{ id: number; name: string }>,
    none: string,
    set: (id: number | '') => void,
  ) => (
    <TextField
      select
      size="small"
      label={label}
      // The empty choice (the template's own) is shown by name, not as a blank field.
      slotProps={{ inputLabel: { shrink: true }, select: { displayEmpty: true } }}
      value={options.some((o) => o.id === current) ? current : ''}
      onChange={(e) => set(e.target.value === '' ? '' : Number(e.target.value))}
    >
      <MenuItem value="">{none}</MenuItem>
      {options.map((o) => (
        <MenuItem key={o.id} value={o.id}>
          {o.name}
        </MenuItem>
      ))}
    </TextField>
  );
  if (!tp.allow_override_environment && !mayInventory && !template.allow_override_branch_in_task) return null;
  return (
    <Stack spacing={1.5} data-testid="run-choices">
      {tp.allow_override_environment
        ? select(
            t('tasks.variableGroup'),
            value.environmentId,
            groupOptions,
            t('tasks.templateGroups'),
            (environmentId) => onChange({ ...value, environmentId }),
          )
        : null}
      {mayInventory
        ? select(
            workspaces ? t('tasks.workspace') : t('tasks.inventory'),
            value.inventoryId,
            inventoryOptions,
            workspaces ? t('tasks.templateWorkspace') : t('tasks.templateInventory'),
            (inventoryId) => onChange({ ...value, inventoryId }),
          )
        : null}
      {template.allow_override_branch_in_task ? (
        tp.branch_choices.length ? (
          <TextField
            select
            size="small"
            label={t('tasks.branch')}
            slotProps={{ inputLabel: { shrink: true }, select: { displayEmpty: true } }}
            value={tp.branch_choices.includes(value.branch) ? value.branch : ''}
            onChange={(e) => onChange({ ...value, branch: e.target.value })}
          >
            <MenuItem value="">{t('tasks.templateBranch')}</MenuItem>
            {tp.branch_choices.map((b) => (
              <MenuItem key={b} value={b}>
                {b}
              </MenuItem>
            ))}
          </TextField>
        ) : (
          <TextField
            size="small"
            label={t('tasks.branch')}
            value={value.branch}
            onChange={(e) => onChange({ ...value, branch: e.target.value })}
            placeholder={template.git_branch ?? ''}
          />
        )
      ) : null}
    </Stack>
  );
}
