import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Divider, Stack, Tab, Tabs, TextField } from '@mui/material';
import { templateInputSchema, type Template, type TemplateType } from '@gantry/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../../components/form-error';
import { projectQueries } from '../../../lib/project-queries';
import { errorText } from '../../../lib/error-text';
import { appsQuery, cronError, syncTemplateSchedule, templateSchedulesQuery, useSaveTemplate } from '../api/templates-api';
import { SurveyVarsEditor } from './survey-vars-editor';
import { draftBody, draftFrom, type TemplateDraft } from './template-draft';
import { TemplateFields } from './template-fields';
import { TemplateParams } from './template-params';
import { VaultsEditor } from './vaults-editor';

/** New, edit or copy a template; the type follows the tab; wide (1200) for ansible and terraform. */
export function TemplateDialog({ projectId, template, copy = false, onClose, onSaved }: { projectId: number; template: Template | null; copy?: boolean; onClose(): void; onSaved(id: number): void }) {
  const { t } = useTranslation();
  const [d, setD] = useState<TemplateDraft>(() => draftFrom(template, copy));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = useSaveTemplate(projectId, template && !copy ? template.id : null);
  const qc = useQueryClient();
  const ownSchedule = useQuery({ ...templateSchedulesQuery(projectId, template?.id ?? 0), enabled: !!template && !copy }).data?.[0];
  // Null until edited: the field shows the template's schedule as it loads.
  const [cron, setCron] = useState<string | null>(null);
  const cronValue = cron ?? ownSchedule?.cron_format ?? '';
  const [scheduleError, setScheduleError] = useState<string | null>(null);
  const choices = {
    apps: useQuery(appsQuery).data ?? [],
    repositories: useQuery(projectQueries.repositories(projectId)).data ?? [],
    environments: useQuery(projectQueries.environments(projectId)).data ?? [],
    inventories: useQuery(projectQueries.inventories(projectId)).data ?? [],
    views: useQuery(projectQueries.views(projectId)).data ?? [],
    keys: useQuery(projectQueries.keys(projectId)).data ?? [],
    buildTemplates: (useQuery(projectQueries.templates(projectId)).data ?? []).filter((x) => x.type === 'build' && x.id !== template?.id),
  };
  const set = (p: Partial<TemplateDraft>) => {
    setD((x) => ({ ...x, ...p }));
    // An edited field's message goes away until the next save attempt.
    setErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !(k in p))));
  };
  const wide = ['ansible', 'terraform', 'tofu'].includes(d.app);
  const submit = async () => {
    const r = templateInputSchema.safeParse(draftBody(d));
    if (!r.success) {
      const errs: Record<string, string> = {};
      for (const i of r.error.issues) errs[String(i.path[0])] ??= i.message;
      setErrors(errs);
      return;
    }
    // The server checks the cron before anything is saved.
    const cronText = cronValue.trim();
    const cronProblem = cronText ? await cronError(projectId, cronText).catch((e: unknown) => errorText(e)) : null;
    if (cronProblem !== null) {
      setErrors({ cron: cronProblem || t('templates.cronInvalid') });
      return;
    }
    setErrors({});
    const id = await save.mutateAsync(draftBody(d)).catch(() => null);
    if (!id) return;
    try {
      await syncTemplateSchedule(projectId, id, d.name.trim(), cronText, copy ? undefined : ownSchedule);
    } catch (e) {
      setScheduleError(errorText(e));
      return;
    } finally {
      await qc.invalidateQueries({ queryKey: ['project', projectId, 'schedules'] });
    }
    onSaved(id);
  };
  const listError = errors.survey_vars ?? errors.vaults ?? errors.task_params;
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth={false} slotProps={{ paper: { sx: { maxWidth: wide ? 1200 : 800 } } }}>
      <DialogTitle>{template && !copy ? t('templates.editTitle') : t('templates.newTitle')}</DialogTitle>
      <Tabs value={d.type} onChange={(_e, v: TemplateType) => set({ type: v })} sx={{ px: 3 }}>
        <Tab value="" label={t('templates.types.task')} />
        <Tab value="build" label={t('templates.types.build')} />
        <Tab value="deploy" label={t('templates.types.deploy')} />
      </Tabs>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <FormError error={save.error ?? (listError ? new Error(listError) : scheduleError ? new Error(scheduleError) : null)} />
          <TemplateFields d={d} set={set} errors={errors} choices={choices} />
          <TextField
            size="small"
            label={t('templates.cron')}
            placeholder="0 3 * * *"
            value={cronValue}
            onChange={(e) => {
              setCron(e.target.value);
              setErrors(({ cron: _gone, ...rest }) => rest);
            }}
            error={!!errors.cron}
            helperText={errors.cron ?? t('templates.cronHelp')}
            sx={{ maxWidth: 400 }}
          />
          <TemplateParams d={d} set={set} />
          <Divider />
          <SurveyVarsEditor vars={d.survey_vars} onChange={(survey_vars) => set({ survey_vars })} />
          {d.app === 'ansible' ? (
            <>
              <Divider />
              <VaultsEditor vaults={d.vaults} keys={choices.keys} onChange={(vaults) => set({ vaults })} />
            </>
          ) : null}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button variant="contained" onClick={() => void submit()} disabled={save.isPending}>
          {template && !copy ? t('common.save') : t('common.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
