import { Button, Dialog, DialogActions, DialogContent, DialogTitle, FormControlLabel, Stack, Switch, TextField } from '@mui/material';
import { runnerInputSchema, type Runner, type RunnerCreated } from '@gantry/contracts';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { focusFirstField } from '../../../components/focus-first-field';
import { FormError } from '../../../components/form-error';
import { useSnackbar } from '../../../components/snackbar';
import { contractResolver } from '../../../lib/contract-resolver';
import { useSaveRunner } from '../api/runners-api';

interface Values {
  name: string;
  tag: string;
  webhook: string;
  max_parallel_tasks: string;
  active: boolean;
}

/** New or edit runner. Project runners need a tag; 0 parallel tasks means unlimited. */
export function RunnerDialog({ projectId, runner, onClose, onCreated }: { projectId: number | null; runner: Runner | null; onClose(): void; onCreated(r: RunnerCreated): void }) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const save = useSaveRunner(projectId, runner?.id ?? null);
  const base = contractResolver<Values>(runnerInputSchema);
  const form = useForm<Values>({
    // The spec's messages: name_required always, tag_required only in a project.
    resolver: async (values, ctx, opts) => {
      const r = await base(values, ctx, opts);
      const errors: Record<string, { type: string; message: string }> = { ...(r.errors as Record<string, { type: string; message: string }>) };
      if (!values.name.trim()) errors.name = { type: 'required', message: t('runners.name_required') };
      if (projectId !== null && !values.tag.trim()) errors.tag = { type: 'required', message: t('runners.tag_required') };
      return Object.keys(errors).length ? { values: {}, errors } : r;
    },
    defaultValues: runner
      ? { name: runner.name, tag: runner.tag, webhook: runner.webhook, max_parallel_tasks: String(runner.max_parallel_tasks), active: runner.active }
      : { name: '', tag: '', webhook: '', max_parallel_tasks: '0', active: true },
  });
  const errors = form.formState.errors;

  const submit = form.handleSubmit(async (v) => {
    const body = runnerInputSchema.parse(v);
    const created = await save.mutateAsync(body).catch(() => undefined);
    if (created === undefined) return;
    snackbar.success(t(runner ? 'runners.saved' : 'runners.created', { name: body.name }));
    if (created) onCreated(created);
    onClose();
  });

  const text = (name: 'name' | 'tag' | 'webhook' | 'max_parallel_tasks', label: string, help: string, required = false) => (
    <Controller
      name={name}
      control={form.control}
      render={({ field }) => (
        <TextField {...field} label={label} required={required} error={!!errors[name]} helperText={errors[name]?.message ?? help} slotProps={{ htmlInput: { spellCheck: false } }} />
      )}
    />
  );

  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{runner ? t('runners.editTitle', { name: runner.name }) : t('runners.newTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} component="form" ref={focusFirstField} id="runner-form" noValidate onSubmit={(e) => void submit(e)} sx={{ pt: 1 }}>
          <FormError error={save.error} />
          {text('name', t('runners.name'), ' ', true)}
          {text('tag', t('runners.tag'), t('runners.tagHelp'), projectId !== null)}
          {text('webhook', t('runners.webhook'), t('runners.webhookHelp'))}
          {text('max_parallel_tasks', t('runners.maxParallelTasks'), t('runners.maxParallelTasksHelp'))}
          <Controller
            name="active"
            control={form.control}
            render={({ field }) => <FormControlLabel control={<Switch checked={field.value} onChange={(e) => field.onChange(e.target.checked)} />} label={t('runners.active')} />}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="runner-form" variant="contained" disabled={save.isPending}>
          {runner ? t('common.save') : t('common.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
