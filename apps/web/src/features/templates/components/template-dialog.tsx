import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Divider,
  Stack,
  Tab,
  Tabs,
  TextField,
  useMediaQuery,
  useTheme,
} from '@mui/material';
import { templateInputSchema, type Template, type TemplateType } from '@gantry/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { focusFirstField } from '../../../components/focus-first-field';
import { FormError } from '../../../components/form-error';
import { contractResolver, errorMessages } from '../../../lib/contract-resolver';
import { focusFirstError } from '../../../lib/focus-first-error';
import { projectQueries } from '../../../lib/project-queries';
import { errorText } from '../../../lib/error-text';
import {
  appsQuery,
  cronError,
  syncTemplateSchedule,
  templateSchedulesQuery,
  useSaveTemplate,
} from '../api/templates-api';
import { SurveyVarsEditor } from './survey-vars-editor';
import { draftBody, draftFrom, type TemplateDraft } from './template-draft';
import { TemplateFields, templateInventories } from './template-fields';
import { TemplateParams } from './template-params';
import { TemplatePolicySection } from './template-policy-section';
import { RunChoicesSection } from './template-lists-fields';
import { VaultsEditor } from './vaults-editor';
import { ApprovalPolicySection } from '../../approvals/components/approval-policy-section';
import { policyErrors, policyProblems } from '../../approvals/components/approval-policy';

/** New, edit or copy a template; the type follows the tab; wide (1200) for ansible and terraform. */
export function TemplateDialog({
  projectId,
  template,
  copy = false,
  onClose,
  onSaved,
}: {
  projectId: number;
  template: Template | null;
  copy?: boolean;
  onClose(): void;
  onSaved(id: number): void;
}) {
  const { t } = useTranslation();
  // One check of everything the server checks (app-dependent fields, survey, vaults) per attempt.
  const form = useForm<TemplateDraft>({
    defaultValues: draftFrom(template, copy),
    resolver: contractResolver<TemplateDraft>(templateInputSchema, draftBody),
    shouldFocusError: false,
  });
  const d = form.watch();
  const submitCount = form.formState.submitCount;
  const errors = errorMessages(form.formState.errors);
  const [cronProblem, setCronProblem] = useState<string | null>(null);
  const content = useRef<HTMLDivElement>(null);
  const save = useSaveTemplate(projectId, template && !copy ? template.id : null);
  const qc = useQueryClient();
  const ownSchedule = useQuery({
    ...templateSchedulesQuery(projectId, template?.id ?? 0),
    enabled: !!template && !copy,
  }).data?.[0];
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
    buildTemplates: (useQuery(projectQueries.templates(projectId)).data ?? []).filter(
      (x) => x.type === 'build' && x.id !== template?.id,
    ),
  };
  const set = (p: Partial<TemplateDraft>) => {
    for (const [key, value] of Object.entries(p))
      form.setValue(key as keyof TemplateDraft, value as never, { shouldDirty: true });
    // After a save attempt the form is checked again as it changes: a fixed field's message goes.
    if (submitCount) void form.trigger();
  };
  // After each attempt the first problem (or the server's message atop) is brought into view.
  useEffect(() => {
    if (submitCount) focusFirstError(content.current);
  }, [submitCount]);
  const wide = ['ansible', 'terraform', 'tofu'].includes(d.app);
  // A phone gets the whole screen: the form is long and its type tabs need the width.
  const phone = useMediaQuery(useTheme().breakpoints.down('sm'), { noSsr: true });
  const submit = form.handleSubmit(async (values) => {
    // The Approval section's own checks (someone can approve, enough of them) come first.
    if (Object.keys(policyProblems(values.approval_policy)).length) return;
    // The server checks the cron before anything is saved.
    const cronText = cronValue.trim();
    const problem = cronText ? await cronError(projectId, cronText).catch((e: unknown) => errorText(e)) : null;
    setCronProblem(problem === null ? null : problem || t('templates.cronInvalid'));
    if (problem !== null) return;
    const id = await save.mutateAsync(draftBody(values)).catch(() => null);
    if (!id) return;
    try {
      await syncTemplateSchedule(projectId, id, values.name.trim(), cronText, copy ? undefined : ownSchedule);
    } catch (e) {
      setScheduleError(errorText(e));
      return;
    } finally {
      await qc.invalidateQueries({ queryKey: ['project', projectId, 'schedules'] });
    }
    onSaved(id);
  });
  return (
    <Dialog
      open
      onClose={onClose}
      fullWidth
      fullScreen={phone}
      maxWidth={false}
      slotProps={{ paper: { sx: { maxWidth: wide ? 1200 : 800 } } }}
    >
      <DialogTitle>{template && !copy ? t('templates.editTitle') : t('templates.newTitle')}</DialogTitle>
      <Tabs value={d.type} onChange={(_e, v: TemplateType) => set({ type: v })} sx={{ px: { xs: 1, sm: 3 } }}>
        <Tab value="" label={t('templates.types.task')} />
        <Tab value="build" label={t('templates.types.build')} />
        <Tab value="deploy" label={t('templates.types.deploy')} />
      </Tabs>
      <DialogContent ref={content}>
        <Stack
          spacing={2}
          sx={{ pt: 1 }}
          component="form"
          id="template-form"
          ref={focusFirstField}
          noValidate
          onSubmit={(e) => void submit(e)}
        >
          <FormError error={save.error ?? (scheduleError ? new Error(scheduleError) : null)} />
          <TemplateFields d={d} set={set} errors={errors} choices={choices} />
          <TextField
            size="small"
            label={t('templates.cron')}
            placeholder="0 3 * * *"
            value={cronValue}
            onChange={(e) => {
              setCron(e.target.value);
              setCronProblem(null);
            }}
            error={!!cronProblem}
            helperText={cronProblem ?? t('templates.cronHelp')}
            sx={{ maxWidth: 400 }}
          />
          <TemplateParams d={d} set={set} />
          <TemplatePolicySection d={d} set={set} errors={errors} />
          <RunChoicesSection
            d={d}
            set={set}
            environments={choices.environments}
            inventories={templateInventories(d.app, choices.inventories)}
          />
          <Divider />
          <SurveyVarsEditor vars={d.survey_vars} errors={errors} onChange={(survey_vars) => set({ survey_vars })} />
          {d.app === 'ansible' ? (
            <>
              <Divider />
              <VaultsEditor
                vaults={d.vaults}
                keys={choices.keys}
                errors={errors}
                onChange={(vaults) => set({ vaults })}
              />
            </>
          ) : null}
          <ApprovalPolicySection
            projectId={projectId}
            policy={d.approval_policy}
            errors={policyErrors(errors, d.approval_policy, submitCount > 0)}
            onChange={(approval_policy) => set({ approval_policy })}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button
          variant="contained"
          type="submit"
          form="template-form"
          disabled={save.isPending || form.formState.isSubmitting}
        >
          {template && !copy ? t('common.save') : t('common.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
