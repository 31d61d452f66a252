import { Autocomplete, Chip, FormControlLabel, MenuItem, Stack, Switch, TextField, Typography } from '@mui/material';
import { PROJECT_ROLES, type TerraformPolicyInput } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';
import type { TemplateDraft } from './template-draft';

type Policy = NonNullable<TemplateDraft['task_params']['policy']>;

const EMPTY: Policy = {
  max_destroys: null,
  deny_destroy_types: [],
  deny_create_types: [],
  destroys_need_owner: false,
  changes_need_role: null,
  policy_path: '',
};

/** The role select's "no one" choice (a select shows no text for an empty value). */
const OFF = 'off';

/** Whether a policy sets nothing (saved as null then). */
function isEmpty(p: TerraformPolicyInput): boolean {
  return (
    p.max_destroys == null &&
    !p.deny_destroy_types?.length &&
    !p.deny_create_types?.length &&
    !p.destroys_need_owner &&
    !p.changes_need_role &&
    !p.policy_path?.trim()
  );
}

/** A list of resource types typed as chips (Enter or a comma adds one). */
function TypesInput({
  label,
  value,
  error,
  onChange,
}: {
  label: string;
  value: string[];
  error?: string;
  onChange(v: string[]): void;
}) {
  const { t } = useTranslation();
  return (
    <Autocomplete<string, true, false, true>
      multiple
      freeSolo
      // A type typed but not yet confirmed with Enter is kept when the field loses focus (Save included).
      autoSelect
      options={[]}
      value={value}
      onChange={(_e, v) => onChange(v.map((x) => x.trim()).filter(Boolean))}
      renderValue={(v, getItemProps) =>
        v.map((x, i) => <Chip size="small" label={x} {...getItemProps({ index: i })} key={x} />)
      }
      renderInput={(params) => (
        <TextField
          {...params}
          size="small"
          label={label}
          error={!!error}
          helperText={error ?? t('terraformPlans.policy.typesHelp')}
        />
      )}
      fullWidth
    />
  );
}

/** The Policy section of a Terraform/OpenTofu template: rules checked on every plan before it may be confirmed. */
export function TemplatePolicySection({
  d,
  set,
  errors,
}: {
  d: TemplateDraft;
  set(p: Partial<TemplateDraft>): void;
  errors: Record<string, string>;
}) {
  const { t } = useTranslation();
  if (d.app !== 'terraform' && d.app !== 'tofu') return null;
  const policy: Policy = { ...EMPTY, ...(d.task_params.policy ?? {}) };
  const update = (p: Partial<Policy>) => {
    const next = { ...policy, ...p };
    set({ task_params: { ...d.task_params, policy: isEmpty(next) ? null : next } });
  };
  const err = (k: string) => {
    const prefix = `task_params.policy.${k}`;
    return Object.entries(errors).find(([path]) => path === prefix || path.startsWith(`${prefix}.`))?.[1];
  };
  return (
    <Stack spacing={1.5} component="section" aria-labelledby="template-policy-title">
      <Typography variant="subtitle2" id="template-policy-title">
        {t('terraformPlans.policy.title')}
      </Typography>
      <Typography variant="body2" color="text.secondary">
        {t('terraformPlans.policy.hint')}
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
        <TextField
          size="small"
          type="number"
          label={t('fieldLabels.max_destroys')}
          value={policy.max_destroys ?? ''}
          onChange={(e) => update({ max_destroys: e.target.value === '' ? null : Number(e.target.value) })}
          error={!!err('max_destroys')}
          helperText={err('max_destroys') ?? t('terraformPlans.policy.maxDestroysHelp')}
          slotProps={{ htmlInput: { min: 0, step: 1 } }}
          sx={{ minWidth: 200 }}
        />
        <TextField
          select
          size="small"
          label={t('terraformPlans.policy.changesNeedRole')}
          value={policy.changes_need_role ?? OFF}
          onChange={(e) =>
            update({
              changes_need_role: (e.target.value === OFF ? null : e.target.value) as Policy['changes_need_role'],
            })
          }
          helperText={err('changes_need_role') ?? t('terraformPlans.policy.changesNeedRoleHelp')}
          error={!!err('changes_need_role')}
          sx={{ minWidth: 280 }}
        >
          <MenuItem value={OFF}>{t('terraformPlans.policy.noRole')}</MenuItem>
          {PROJECT_ROLES.map((r) => (
            <MenuItem key={r} value={r}>
              {t(`roles.${r}`)}
            </MenuItem>
          ))}
        </TextField>
      </Stack>
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
        <TypesInput
          label={t('terraformPlans.policy.denyDestroyTypes')}
          value={policy.deny_destroy_types ?? []}
          error={err('deny_destroy_types')}
          onChange={(v) => update({ deny_destroy_types: v })}
        />
        <TypesInput
          label={t('terraformPlans.policy.denyCreateTypes')}
          value={policy.deny_create_types ?? []}
          error={err('deny_create_types')}
          onChange={(v) => update({ deny_create_types: v })}
        />
      </Stack>
      <FormControlLabel
        control={
          <Switch
            checked={!!policy.destroys_need_owner}
            onChange={(e) => update({ destroys_need_owner: e.target.checked })}
          />
        }
        label={t('terraformPlans.policy.destroysNeedOwner')}
      />
      <TextField
        size="small"
        label={t('fieldLabels.policy_path')}
        value={policy.policy_path ?? ''}
        onChange={(e) => update({ policy_path: e.target.value })}
        error={!!err('policy_path')}
        helperText={err('policy_path') ?? t('terraformPlans.policy.policyPathHelp')}
        placeholder="policy/"
      />
    </Stack>
  );
}
