import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField } from '@mui/material';
import { appCreateSchema, appTakesArgs, appUpdateSchema, type App } from '@gantry/contracts';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { focusFirstField } from '../../../components/focus-first-field';
import { FormError } from '../../../components/form-error';
import { useSnackbar } from '../../../components/snackbar';
import { contractResolver } from '../../../lib/contract-resolver';
import { useSaveApp } from '../api/apps-api';

interface Values {
  id: string;
  title: string;
  path: string;
  priority: string;
  /** A JSON list of strings, as typed. */
  args: string;
}

/** The typed arguments as a list; text that is not a JSON list goes on as is, for the schema to refuse. */
function parseArgs(text: string): unknown {
  if (!text.trim()) return [];
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const toBody = (v: Values) => ({ ...v, args: parseArgs(v.args) });

/** Create a custom app, or change an app's title, path, priority and arguments (its id is fixed). */
export function AppDialog({ app, onClose }: { app: App | null; onClose(): void }) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const isNew = app === null;
  const save = useSaveApp(app?.id ?? null);
  const form = useForm<Values>({
    resolver: contractResolver<Values>(isNew ? appCreateSchema : appUpdateSchema, toBody),
    defaultValues: app
      ? {
          id: app.id,
          title: app.title,
          path: app.path,
          priority: String(app.priority),
          args: app.args.length ? JSON.stringify(app.args) : '',
        }
      : { id: '', title: '', path: '', priority: '0', args: '' },
  });
  const errors = form.formState.errors;
  const id = form.watch('id');

  const submit = form.handleSubmit(async (v) => {
    // The resolver has checked the values: parsing again only gives the body its API types.
    const body = isNew
      ? appCreateSchema.parse({ ...toBody(v), icon: '' })
      : appUpdateSchema.parse({ ...toBody(v), icon: app.icon });
    const ok = await save
      .mutateAsync(body)
      .then(() => true)
      .catch(() => false);
    if (!ok) return;
    snackbar.success(t(isNew ? 'apps.created' : 'apps.saved', { name: v.title.trim() }));
    onClose();
  });

  const field = (
    name: keyof Values,
    label: string,
    help: string,
    opts: { required?: boolean; placeholder?: string } = {},
  ) => (
    <Controller
      name={name}
      control={form.control}
      render={({ field: f }) => (
        <TextField
          {...f}
          label={label}
          required={opts.required}
          placeholder={opts.placeholder}
          error={!!errors[name]}
          helperText={errors[name]?.message ?? help}
          slotProps={{ htmlInput: { spellCheck: false } }}
        />
      )}
    />
  );

  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{isNew ? t('apps.newTitle') : t('apps.editTitle', { name: app.title })}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} component="form" ref={focusFirstField} id="app-form" noValidate onSubmit={(e) => void submit(e)} sx={{ pt: 1 }}>
          <FormError error={save.error} />
          {isNew ? field('id', t('apps.id'), t('apps.idHelp'), { required: true, placeholder: 'my-tool' }) : null}
          {field('title', t('apps.appTitle'), ' ', { required: true })}
          {field('path', t('apps.path'), t('apps.pathHelp'), { required: true, placeholder: '/usr/local/bin/tool' })}
          {field('priority', t('apps.priority'), t('apps.priorityHelp'))}
          {appTakesArgs(isNew ? id : app.id)
            ? field('args', t('apps.args'), t('apps.argsHelp'), { placeholder: '["-e"]' })
            : null}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="app-form" variant="contained" disabled={save.isPending}>
          {isNew ? t('common.create') : t('common.save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
