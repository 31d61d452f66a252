import { Autocomplete, Checkbox, Chip, FormControlLabel, Stack, TextField, Typography } from '@mui/material';
import type { TemplateTaskParams } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';
import type { TemplateDraft } from './template-draft';

interface Named {
  id: number;
  name: string;
}

/**
 * An ordered choice of several rows (variable groups, inventories): picked ones keep the order
 * they were picked in, each chip shows its place, and removing one lets it be added again last.
 */
export function IdListSelect({
  label,
  options,
  value,
  onChange,
  error,
  helperText,
  required = false,
  numbered = true,
}: {
  label: string;
  options: Named[];
  value: number[];
  onChange(ids: number[]): void;
  error?: string;
  helperText: string;
  required?: boolean;
  /** Whether each chip shows its place (the order matters). */
  numbered?: boolean;
}) {
  const byId = new Map(options.map((o) => [o.id, o.name]));
  return (
    <Autocomplete
      multiple
      size="small"
      options={options.map((o) => o.id)}
      value={value}
      onChange={(_e, ids) => onChange(ids)}
      getOptionLabel={(id) => byId.get(id) ?? `#${id}`}
      renderValue={(ids, getItemProps) =>
        ids.map((id, i) => {
          const { key, ...item } = getItemProps({ index: i });
          const name = byId.get(id) ?? `#${id}`;
          return <Chip key={key} size="small" label={numbered ? `${i + 1}. ${name}` : name} {...item} />;
        })
      }
      renderInput={(params) => (
        <TextField {...params} label={label} required={required} error={!!error} helperText={error ?? helperText} />
      )}
    />
  );
}

/**
 * The template form's "Run-time choices": whether a task may choose its variable group, its
 * inventory (a workspace for Terraform/OpenTofu) and its branch, each from a list the template
 * restricts (empty: any).
 */
export function RunChoicesSection({
  d,
  set,
  environments,
  inventories,
}: {
  d: TemplateDraft;
  set(p: Partial<TemplateDraft>): void;
  environments: Named[];
  /** The inventories a task of this app may use (already filtered by the form). */
  inventories: Named[];
}) {
  const { t } = useTranslation();
  const tp = d.task_params;
  const terraform = d.app === 'terraform' || d.app === 'tofu';
  const setParams = (p: Partial<TemplateTaskParams>) => set({ task_params: { ...tp, ...p } });
  const check = (checked: boolean, onChange: (v: boolean) => void, label: string) => (
    <FormControlLabel
      control={<Checkbox size="small" checked={checked} onChange={(e) => onChange(e.target.checked)} />}
      label={label}
    />
  );
  return (
    <Stack spacing={1} data-testid="run-choices-section">
      <Typography variant="subtitle2">{t('templates.runChoices.title')}</Typography>
      {check(
        tp.allow_override_environment,
        (v) => setParams({ allow_override_environment: v }),
        t('templates.runChoices.allowGroup'),
      )}
      {tp.allow_override_environment ? (
        <IdListSelect
          label={t('templates.runChoices.groups')}
          options={environments}
          value={tp.environment_choices}
          onChange={(environment_choices) => setParams({ environment_choices })}
          helperText={t('templates.runChoices.anyGroup')}
          numbered={false}
        />
      ) : null}
      {d.app === 'ansible' || terraform ? (
        <>
          {check(
            tp.allow_override_inventory,
            (v) => setParams({ allow_override_inventory: v }),
            terraform ? t('templates.runChoices.allowWorkspace') : t('templates.allowInventory'),
          )}
          {tp.allow_override_inventory ? (
            <IdListSelect
              label={terraform ? t('templates.runChoices.workspaces') : t('templates.runChoices.inventories')}
              options={inventories}
              value={tp.inventory_choices}
              onChange={(inventory_choices) => setParams({ inventory_choices })}
              helperText={terraform ? t('templates.runChoices.anyWorkspace') : t('templates.runChoices.anyInventory')}
              numbered={false}
            />
          ) : null}
        </>
      ) : null}
      {check(
        d.allow_override_branch_in_task,
        (v) => set({ allow_override_branch_in_task: v }),
        t('templates.allowBranch'),
      )}
      {d.allow_override_branch_in_task ? (
        <Autocomplete
          multiple
          freeSolo
          size="small"
          options={[]}
          value={tp.branch_choices}
          onChange={(_e, v) => setParams({ branch_choices: [...new Set(v.map((b) => b.trim()).filter(Boolean))] })}
          renderInput={(params) => (
            <TextField
              {...params}
              label={t('templates.runChoices.branches')}
              helperText={t('templates.runChoices.anyBranch')}
            />
          )}
        />
      ) : null}
    </Stack>
  );
}
