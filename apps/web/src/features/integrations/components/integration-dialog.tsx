import {
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  FormHelperText,
  MenuItem,
  Stack,
  TextField,
} from '@mui/material';
import {
  AUTH_METHODS_WITH_HEADER,
  DEFAULT_AUTH_HEADERS,
  authMethodOf,
  INTEGRATION_AUTH_METHODS,
  integrationInputSchema,
  type Integration,
  type IntegrationAuthMethod,
} from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useCallback, type FormEvent } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../../components/form-error';
import { KeySelect } from '../../../components/key-select';
import { contractResolver, issueText } from '../../../lib/contract-resolver';
import { projectQueries } from '../../../lib/project-queries';
import { useSaveIntegration } from '../api/integrations-api';
import { startKindOf, WORKFLOW_NOT_CHOSEN, type StartKind } from '../../schedules/api/workflow-choices';
import { StartTargetFields } from '../../schedules/components/start-target-fields';
import { IntegrationAnswersFields } from './integration-answers-fields';
import { useIntegrationAnswers } from './use-integration-answers';

interface Values {
  name: string;
  kind: StartKind;
  template_id: number | '';
  workflow_id: number | '';
  auth_method: IntegrationAuthMethod;
  auth_header: string;
  auth_secret_id: number | '';
  searchable: boolean;
  message: string;
  /** Extra variables as JSON text: those that are no parameter of the template when it has some. */
  environment: string;
}

/** The request body the form's values stand for: fields the chosen auth method does not use are cleared. */
function toBody(v: Values, item: Integration | null) {
  const { kind, ...rest } = v;
  return {
    ...rest,
    // Only the chosen one is sent; null clears the other on an edit.
    template_id: kind === 'template' && v.template_id !== '' ? v.template_id : kind === 'template' ? undefined : null,
    workflow_id:
      kind === 'workflow' && v.workflow_id !== '' ? v.workflow_id : kind === 'workflow' ? WORKFLOW_NOT_CHOSEN : null,
    auth_header: AUTH_METHODS_WITH_HEADER.includes(v.auth_method) ? v.auth_header : null,
    auth_secret_id: v.auth_method === 'none' || v.auth_secret_id === '' ? null : v.auth_secret_id,
    // Run options set through the API are kept; the form edits the message and extra variables.
    task_params: {
      ...item?.task_params,
      message: v.message.trim() || undefined,
      environment: v.environment.trim() || undefined,
    },
  };
}

/**
 * New or edit integration: name, what it runs (a template or a workflow), how the sender authenticates (header only for
 * token and hmac, a secret key for every method but none) and whether project aliases reach it.
 */
export function IntegrationDialog({
  projectId,
  item,
  onClose,
}: {
  projectId: number;
  item: Integration | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  // The secret is a key's password (basic auth also uses its login).
  const keys = (useQuery(projectQueries.keys(projectId)).data ?? []).filter(
    (k) => k.type === 'login_password' || k.id === item?.auth_secret_id,
  );
  const save = useSaveIntegration(projectId, item?.id ?? null);
  const form = useForm<Values>({
    resolver: contractResolver<Values>(integrationInputSchema, (v) => toBody(v, item), {
      'task_params.environment': 'environment',
      // A variable name the rules refuse is named on task_params.
      task_params: 'environment',
    }),
    defaultValues: {
      name: item?.name ?? '',
      kind: startKindOf(item),
      // A workflow's integration answers template_id 0.
      template_id: item?.template_id || '',
      workflow_id: item?.workflow_id ?? '',
      auth_method: item ? authMethodOf(item.auth_method) : 'none',
      auth_header: item?.auth_header ?? '',
      auth_secret_id: item?.auth_secret_id ?? '',
      searchable: item?.searchable ?? false,
      message: item?.task_params.message ?? '',
      environment: item?.task_params.environment ?? '',
    },
  });
  const method = form.watch('auth_method');
  const kind = form.watch('kind');
  const templateId = form.watch('template_id');
  const e = form.formState.errors;
  // Answers to the template's parameters in typed controls; the other extra variables stay JSON text.
  const answers = useIntegrationAnswers({
    projectId,
    templateId: kind === 'template' ? templateId : '',
    other: useCallback(() => form.getValues('environment'), [form]),
    setOther: useCallback((text: string) => form.setValue('environment', text), [form]),
    saveError: save.error,
    onRefusedEdited: save.reset,
  });
  const submit = (ev: FormEvent) => {
    // Every problem at once: the answers' and the other fields'.
    const answersFine = answers.check();
    void form.handleSubmit(async (v) => {
      if (!answersFine) return;
      const clash = answers.clash(v.environment);
      if (clash) {
        form.setError('environment', { message: t('integrations.parameterInExtraVars', { name: clash }) });
        return;
      }
      const environment = answers.environment(v.environment);
      const body = integrationInputSchema.safeParse(toBody({ ...v, environment }, item));
      if (!body.success) {
        form.setError('environment', { message: issueText(body.error.issues[0]!) });
        return;
      }
      if (
        await save.mutateAsync(body.data).then(
          () => true,
          () => false,
        )
      )
        onClose();
    })(ev);
  };
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{item ? t('integrations.editTitle') : t('integrations.newTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={1} component="form" id="integration-form" noValidate onSubmit={submit} sx={{ pt: 1 }}>
          {/* A refused answer is shown at its control. */}
          <FormError error={answers.refused ? null : save.error} />
          <Controller
            name="name"
            control={form.control}
            render={({ field: f }) => (
              <TextField
                {...f}
                label={t('common.name')}
                required
                autoFocus
                error={!!e.name}
                helperText={e.name?.message ?? ' '}
              />
            )}
          />
          <StartTargetFields
            projectId={projectId}
            kind={kind}
            onKind={(k) => {
              form.setValue('kind', k);
              form.clearErrors(['template_id', 'workflow_id']);
            }}
            templateId={templateId}
            onTemplate={(id) => {
              form.setValue('template_id', id);
              form.clearErrors('template_id');
              answers.reset();
            }}
            workflowId={form.watch('workflow_id')}
            onWorkflow={(id) => {
              form.setValue('workflow_id', id);
              form.clearErrors('workflow_id');
            }}
            templateError={e.template_id?.message}
            workflowError={e.workflow_id?.message}
          />
          <Controller
            name="auth_method"
            control={form.control}
            render={({ field: f }) => (
              <TextField
                {...f}
                select
                label={t('integrations.authMethod')}
                helperText={t(`integrations.authHelp.${method}`)}
              >
                {INTEGRATION_AUTH_METHODS.map((m) => (
                  <MenuItem key={m} value={m}>
                    {t(`integrations.authMethods.${m}`)}
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
          {AUTH_METHODS_WITH_HEADER.includes(method) ? (
            <Controller
              name="auth_header"
              control={form.control}
              render={({ field: f }) => (
                <TextField
                  {...f}
                  label={t('integrations.authHeader')}
                  placeholder={DEFAULT_AUTH_HEADERS[method]}
                  error={!!e.auth_header}
                  helperText={
                    e.auth_header?.message ?? t('integrations.authHeaderHelp', { header: DEFAULT_AUTH_HEADERS[method] })
                  }
                  slotProps={{ htmlInput: { autoComplete: 'off' } }}
                />
              )}
            />
          ) : null}
          {method !== 'none' ? (
            <Controller
              name="auth_secret_id"
              control={form.control}
              render={({ field: f }) => (
                <KeySelect
                  {...f}
                  keys={keys}
                  label={t('integrations.authSecret')}
                  required
                  error={!!e.auth_secret_id}
                  helperText={e.auth_secret_id?.message ?? t('integrations.authSecretHelp')}
                />
              )}
            />
          ) : null}
          {answers.fields ? <IntegrationAnswersFields {...answers.fields} /> : null}
          <Controller
            name="message"
            control={form.control}
            render={({ field: f }) => (
              <TextField {...f} label={t('integrations.taskMessage')} helperText={t('integrations.taskMessageHelp')} />
            )}
          />
          <Controller
            name="environment"
            control={form.control}
            render={({ field: f }) => (
              <TextField
                {...f}
                label={answers.answered ? t('integrations.otherExtraVars') : t('integrations.extraVars')}
                multiline
                minRows={2}
                placeholder='{"env": "production"}'
                error={!!e.environment}
                helperText={
                  e.environment?.message ??
                  (answers.answered ? t('integrations.otherExtraVarsHelp') : t('integrations.extraVarsHelp'))
                }
                slotProps={{ htmlInput: { style: { fontFamily: 'monospace' } } }}
              />
            )}
          />
          <Controller
            name="searchable"
            control={form.control}
            render={({ field: f }) => (
              <div>
                <FormControlLabel
                  control={<Checkbox checked={f.value} onChange={(ev) => f.onChange(ev.target.checked)} />}
                  label={t('integrations.searchable')}
                />
                <FormHelperText sx={{ mt: 0, ml: 4 }}>{t('integrations.searchableHelp')}</FormHelperText>
              </div>
            )}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="integration-form" variant="contained" disabled={save.isPending}>
          {item ? t('common.save') : t('common.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
