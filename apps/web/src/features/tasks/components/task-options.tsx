import { Checkbox, FormControlLabel, MenuItem, Stack, TextField } from '@mui/material';
import { DEBUG_LEVEL_MAX, DEBUG_LEVEL_MIN, type TaskParams, type Template } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';

const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);

/**
 * Per-app run options, shown only where the template allows them. `mayDebug`: the template allows
 * debug, or the user may edit the template (who may always ask for debug output).
 */
export function TaskOptions({ template, params, mayDebug, onParams }: { template: Template; params: TaskParams; mayDebug: boolean; onParams(p: TaskParams): void }) {
  const { t } = useTranslation();
  const tp = template.task_params;
  const check = (key: keyof TaskParams, label: string) => (
    <FormControlLabel key={key} control={<Checkbox checked={!!params[key]} onChange={(e) => onParams({ ...params, [key]: e.target.checked })} />} label={label} />
  );
  if (template.app === 'terraform' || template.app === 'tofu') {
    return (
      <Stack direction="row" sx={{ flexWrap: 'wrap' }}>
        {check('plan', t('tasks.planOnly'))}
        {tp.allow_destroy ? check('destroy', t('tasks.destroy')) : null}
        {tp.allow_auto_approve ? check('auto_approve', t('tasks.autoApprove')) : null}
        {check('upgrade', t('tasks.upgrade'))}
        {check('reconfigure', t('tasks.reconfigure'))}
      </Stack>
    );
  }
  if (template.app !== 'ansible') return null;
  return (
    <Stack spacing={1}>
      <Stack direction="row" sx={{ flexWrap: 'wrap', alignItems: 'center' }}>
        {mayDebug ? check('debug', t('tasks.debug')) : null}
        {mayDebug && params.debug ? (
          <TextField select size="small" label={t('tasks.debugLevel')} value={params.debug_level ?? 4} onChange={(e) => onParams({ ...params, debug_level: Number(e.target.value) })} sx={{ width: 140, mr: 2 }}>
            {Array.from({ length: DEBUG_LEVEL_MAX - DEBUG_LEVEL_MIN + 1 }, (_x, i) => i + DEBUG_LEVEL_MIN).map((l) => (
              <MenuItem key={l} value={l}>
                {'-' + 'v'.repeat(l)}
              </MenuItem>
            ))}
          </TextField>
        ) : null}
        {check('dry_run', t('tasks.dryRun'))}
        {check('diff', t('tasks.diff'))}
      </Stack>
      {tp.allow_override_limit ? <TextField size="small" label={t('tasks.limit')} value={(params.limit ?? []).join(', ')} onChange={(e) => onParams({ ...params, limit: list(e.target.value) })} /> : null}
      {tp.allow_override_tags ? <TextField size="small" label={t('tasks.tags')} value={(params.tags ?? []).join(', ')} onChange={(e) => onParams({ ...params, tags: list(e.target.value) })} /> : null}
      {tp.allow_override_skip_tags ? <TextField size="small" label={t('tasks.skipTags')} value={(params.skip_tags ?? []).join(', ')} onChange={(e) => onParams({ ...params, skip_tags: list(e.target.value) })} /> : null}
    </Stack>
  );
}
