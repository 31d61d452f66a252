import { Checkbox, FormControlLabel, Stack, TextField, Typography } from '@mui/material';
import type { TemplateTaskParams } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';
import type { TemplateDraft } from './template-draft';

/** Run defaults and what a task may change: ansible filters and overrides, terraform approval. */
export function TemplateParams({ d, set }: { d: TemplateDraft; set(p: Partial<TemplateDraft>): void }) {
  const { t } = useTranslation();
  const flag = (key: keyof TemplateTaskParams, label: string) => (
    <FormControlLabel key={key} control={<Checkbox size="small" checked={!!d.task_params[key]} onChange={(e) => set({ task_params: { ...d.task_params, [key]: e.target.checked } })} />} label={label} />
  );
  if (d.app === 'terraform' || d.app === 'tofu') {
    return (
      <Stack>
        <Typography variant="subtitle2">{t('templates.runOptions')}</Typography>
        <Stack direction="row" sx={{ flexWrap: 'wrap' }}>
          {flag('auto_approve', t('templates.autoApprove'))}
          {flag('allow_auto_approve', t('templates.allowAutoApprove'))}
          {flag('allow_destroy', t('templates.allowDestroy'))}
        </Stack>
      </Stack>
    );
  }
  if (d.app !== 'ansible') return null;
  return (
    <Stack spacing={1}>
      <Typography variant="subtitle2">{t('templates.runOptions')}</Typography>
      {/* One per line on a phone, so each label shows whole. */}
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={{ xs: 2, sm: 1 }}>
        <TextField size="small" label={t('tasks.limit')} value={d.limit} onChange={(e) => set({ limit: e.target.value })} fullWidth />
        <TextField size="small" label={t('tasks.tags')} value={d.tags} onChange={(e) => set({ tags: e.target.value })} fullWidth />
        <TextField size="small" label={t('tasks.skipTags')} value={d.skip_tags} onChange={(e) => set({ skip_tags: e.target.value })} fullWidth />
      </Stack>
      <Stack direction="row" sx={{ flexWrap: 'wrap' }}>
        {flag('allow_debug', t('templates.allowDebug'))}
        {flag('allow_override_limit', t('templates.allowLimit'))}
        {flag('allow_override_tags', t('templates.allowTags'))}
        {flag('allow_override_skip_tags', t('templates.allowSkipTags'))}
      </Stack>
    </Stack>
  );
}
