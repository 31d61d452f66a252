import { Checkbox, FormControlLabel, Grid, MenuItem, TextField } from '@mui/material';
import type { AccessKey, App, Environment, Inventory, Repository, Template, View } from '@gantry/contracts';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { TemplateDraft } from './template-draft';
import { IdListSelect } from './template-lists-fields';

export interface TemplateChoices {
  apps: App[];
  repositories: Repository[];
  environments: Environment[];
  inventories: Inventory[];
  views: View[];
  keys: AccessKey[];
  buildTemplates: Template[];
}

/** The inventories a template of this app may use: workspaces of its kind for Terraform/OpenTofu, host lists for Ansible. */
export function templateInventories(app: string, inventories: Inventory[]): Inventory[] {
  const terraform = app === 'terraform' || app === 'tofu';
  return inventories.filter((i) => (terraform ? i.type === `${app}-workspace` : app === 'ansible' ? !i.type.endsWith('-workspace') : false));
}

/** The template's main fields; which ones show depends on its app and type. */
export function TemplateFields({ d, set, errors, choices }: { d: TemplateDraft; set(p: Partial<TemplateDraft>): void; errors: Record<string, string>; choices: TemplateChoices }) {
  const { t } = useTranslation();
  const terraform = d.app === 'terraform' || d.app === 'tofu';
  const inventories = templateInventories(d.app, choices.inventories);
  const select = (key: keyof TemplateDraft, label: string, options: Array<{ id: number | string; name: string }>, required = false, none?: string): ReactNode => (
    <TextField select fullWidth size="small" label={label} required={required} value={d[key] as string | number} onChange={(e) => set({ [key]: e.target.value === '' ? '' : isNaN(Number(e.target.value)) ? e.target.value : Number(e.target.value) } as Partial<TemplateDraft>)} error={!!errors[key]} helperText={errors[key] ?? ' '}>
      {none !== undefined ? <MenuItem value="">{none}</MenuItem> : null}
      {options.map((o) => (
        <MenuItem key={o.id} value={o.id}>
          {o.name}
        </MenuItem>
      ))}
    </TextField>
  );
  const text = (key: 'name' | 'description' | 'playbook' | 'git_branch' | 'arguments' | 'start_version', label: string, required = false, placeholder?: string) => (
    <TextField fullWidth size="small" label={label} required={required} placeholder={placeholder} value={d[key]} onChange={(e) => set({ [key]: e.target.value })} error={!!errors[key]} helperText={errors[key] ?? ' '} />
  );
  const check = (key: 'allow_override_args_in_task' | 'allow_extra_vars_in_task' | 'suppress_success_alerts' | 'autorun', label: string) => (
    <FormControlLabel control={<Checkbox size="small" checked={d[key]} onChange={(e) => set({ [key]: e.target.checked })} />} label={label} />
  );
  return (
    <Grid container columnSpacing={2}>
      <Grid size={{ xs: 12, md: 6 }}>{text('name', t('common.name'), true)}</Grid>
      <Grid size={{ xs: 12, md: 6 }}>{select('app', t('templates.app'), choices.apps.map((a) => ({ id: a.id, name: a.title + (a.active ? '' : ` (${t('templates.notInstalled')})`) })), true)}</Grid>
      <Grid size={12}>{text('description', t('templates.description'))}</Grid>
      <Grid size={{ xs: 12, md: 6 }}>{text('playbook', t(`templates.playbookLabel.${terraform ? 'terraform' : d.app === 'ansible' ? 'ansible' : d.app === 'pulumi' ? 'pulumi' : 'script'}`), !terraform && d.app !== 'pulumi', d.app === 'ansible' ? 'site.yml' : undefined)}</Grid>
      {terraform ? (
        <Grid size={{ xs: 12, md: 6 }}>
          <TextField select fullWidth size="small" label={t('templates.workspace')} value={d.inventory_ids[0] ?? ''} onChange={(e) => set({ inventory_ids: e.target.value === '' ? [] : [Number(e.target.value)] })} error={!!errors.inventory_id} helperText={errors.inventory_id ?? ' '}>
            <MenuItem value="">{t('templates.none')}</MenuItem>
            {inventories.map((o) => (
              <MenuItem key={o.id} value={o.id}>
                {o.name}
              </MenuItem>
            ))}
          </TextField>
        </Grid>
      ) : null}
      {d.app === 'ansible' ? (
        <Grid size={{ xs: 12, md: 6 }}>
          <IdListSelect label={t('templates.inventories')} options={inventories} value={d.inventory_ids} onChange={(inventory_ids) => set({ inventory_ids })} required error={errors.inventory_id ?? errors.inventory_ids} helperText={t('templates.inventoriesHelp')} />
        </Grid>
      ) : null}
      <Grid size={{ xs: 12, md: 6 }}>{select('repository_id', t('templates.repository'), choices.repositories, true)}</Grid>
      <Grid size={{ xs: 12, md: 6 }}>
        <IdListSelect label={t('templates.environments')} options={choices.environments} value={d.environment_ids} onChange={(environment_ids) => set({ environment_ids })} required error={errors.environment_id ?? errors.environment_ids} helperText={t('templates.environmentsHelp')} />
      </Grid>
      <Grid size={{ xs: 12, md: 6 }}>{select('view_id', t('templates.view'), choices.views.map((v) => ({ id: v.id, name: v.title })), false, t('templates.none'))}</Grid>
      <Grid size={{ xs: 12, md: 6 }}>{text('git_branch', t('templates.branch'), false, t('templates.branchHelp'))}</Grid>
      {d.type === 'build' ? <Grid size={{ xs: 12, md: 6 }}>{text('start_version', t('templates.startVersion'), true, '1.0.0')}</Grid> : null}
      {d.type === 'deploy' ? (
        <>
          <Grid size={{ xs: 12, md: 6 }}>{select('build_template_id', t('templates.buildTemplate'), choices.buildTemplates, true)}</Grid>
          <Grid size={{ xs: 12, md: 6 }}>{check('autorun', t('templates.autorun'))}</Grid>
        </>
      ) : null}
      <Grid size={12}>{text('arguments', t('templates.arguments'), false, '["--forks", "10"]')}</Grid>
      <Grid size={12}>
        {check('allow_override_args_in_task', t('templates.allowArgs'))}
        {check('allow_extra_vars_in_task', t('templates.allowExtraVars'))}
        {check('suppress_success_alerts', t('templates.suppressAlerts'))}
      </Grid>
    </Grid>
  );
}
