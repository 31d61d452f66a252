import { Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField } from '@mui/material';
import { parseArgumentList, type Task, type TaskParams, type Template } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { focusFirstField } from '../../components/focus-first-field';
import { FormError } from '../../components/form-error';
import { api } from '../../lib/api-client';
import { useProjectAccess } from '../../lib/project-access';
import type { TaskLaunch } from '../../lib/task-launcher';
import { useCreateTask } from './api/tasks-api';
import { openTaskLog } from './task-log-host';
import { SurveyFields } from '../../components/parameters/survey-fields';
import {
  initialSurveyValues,
  surveyErrors,
  surveyPayload,
  type SurveyFormValues,
} from '../../components/parameters/survey-answers-form';
import { TaskOptions } from './components/task-options';
import { RunChoices, runChoicesBody, type RunChoiceValues } from './components/run-choices';

/** The New task form for one launch (opened by NewTaskHost). */
export function NewTaskDialog({ launch, onClose }: { launch: TaskLaunch; onClose(): void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const { projectId, templateId, fromTaskId } = launch;
  const template = useQuery({
    queryKey: ['project', projectId, 'template', templateId],
    queryFn: () => api.get<Template>(`/project/${projectId}/templates/${templateId}`),
  }).data;
  const previous = useQuery({
    queryKey: ['task', fromTaskId],
    queryFn: () => api.get<Task>(`/project/${projectId}/tasks/${fromTaskId}`),
    enabled: !!fromTaskId,
  }).data;
  const builds =
    useQuery({
      queryKey: ['project', projectId, 'template', template?.build_template_id, 'tasks', 'success'],
      queryFn: () =>
        api.get<Task[]>(`/project/${projectId}/templates/${template!.build_template_id}/tasks?status=success`),
      enabled: template?.type === 'deploy' && !!template.build_template_id,
    }).data ?? [];
  const create = useCreateTask(projectId);
  const [message, setMessage] = useState('');
  const [answers, setAnswers] = useState<SurveyFormValues>({});
  const [params, setParams] = useState<TaskParams>({ debug_level: 4 });
  const [choices, setChoices] = useState<RunChoiceValues>({ environmentId: '', inventoryId: '', branch: '' });
  const [args, setArgs] = useState('');
  // Argument overrides are for managers and owners; the server refuses them from other roles.
  // Those who may edit templates may also always ask for debug output. The role decides, not
  // whether the project is managed by code: these are run options, and running stays allowed.
  const canManage = useProjectAccess(projectId).roleCanManage;
  const canOverrideArgs = canManage;
  const [buildId, setBuildId] = useState<number | ''>('');
  const [errors, setErrors] = useState<Record<string, string>>({});

  useEffect(() => {
    // Re-run: copy the previous task's fields.
    if (!previous) return;
    setMessage(previous.message);
    // Typed answers (true, 5, a list) are kept as text until the template says each one's control.
    setAnswers(initialSurveyValues([], JSON.parse(previous.environment || '{}') as Record<string, unknown>));
    setParams({ debug_level: 4, ...previous.params });
    // The run-time choices too (those the template no longer offers are left out when sent).
    setChoices({
      environmentId: previous.environment_id ?? '',
      inventoryId: previous.inventory_id ?? '',
      branch: previous.git_branch ?? '',
    });
    setArgs(previous.arguments ?? '');
    setBuildId(previous.build_task_id ?? '');
  }, [previous]);

  // A new task starts with the survey's default answers; a re-run copies the previous task's.
  const [prefilled, setPrefilled] = useState(false);
  if (template && !fromTaskId && !prefilled) {
    setPrefilled(true);
    setAnswers(initialSurveyValues(template.survey_vars));
  }

  if (!template) return null;
  const mayDebug = template.task_params.allow_debug || canManage;
  const submit = async () => {
    // Every parameter's problem at once, by the server's rules.
    const errs = surveyErrors(template.survey_vars, answers);
    if (template.type === 'deploy' && !buildId) errs.build = t('tasks.buildRequired');
    if (canOverrideArgs && args && parseArgumentList(args) === null) errs.args = t('tasks.argsInvalid');
    setErrors(errs);
    if (Object.keys(errs).length) return;
    const typed = surveyPayload(template.survey_vars, answers);
    const task = await create
      .mutateAsync({
        template_id: templateId,
        message,
        environment: typed.environment,
        secret: typed.secret,
        // A re-run of someone else's debug task does not ask for what this user may not have.
        params: mayDebug ? params : { ...params, debug: undefined },
        ...runChoicesBody(template, choices),
        arguments: (canOverrideArgs && args) || null,
        build_task_id: buildId || null,
      })
      .catch(() => null);
    if (!task) return;
    const q = new URLSearchParams(location.search);
    q.set('t', String(task.id));
    // In one render, not waiting for the address (the router changes it in a transition): this
    // form goes and the task's log (its code already loaded, see NewTaskHost) comes.
    openTaskLog(projectId, task, () => void navigate(`${location.pathname}?${q.toString()}`));
    onClose();
  };
  const action =
    template.type === 'build'
      ? t('templates.build')
      : template.type === 'deploy'
        ? t('templates.deploy')
        : t('templates.run');
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{t('tasks.newTitle', { name: template.name })}</DialogTitle>
      <DialogContent>
        <Stack
          spacing={1.5}
          sx={{ pt: 1 }}
          component="form"
          id="new-task-form"
          ref={focusFirstField}
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <FormError error={create.error} />
          {template.type === 'deploy' ? (
            <TextField
              select
              label={t('tasks.buildVersion')}
              required
              value={buildId}
              onChange={(e) => setBuildId(Number(e.target.value))}
              error={!!errors.build}
              helperText={errors.build ?? ' '}
            >
              {builds.map((b) => (
                <MenuItem key={b.id} value={b.id}>
                  {b.version ?? `#${b.id}`} · #{b.id}
                </MenuItem>
              ))}
            </TextField>
          ) : null}
          <TextField label={t('tasks.message')} value={message} onChange={(e) => setMessage(e.target.value)} />
          <SurveyFields
            projectId={projectId}
            templateId={templateId}
            inventoryId={choices.inventoryId || null}
            vars={template.survey_vars}
            values={answers}
            errors={errors}
            onChange={(n, v) => setAnswers({ ...answers, [n]: v })}
          />
          <TaskOptions template={template} params={params} mayDebug={mayDebug} onParams={setParams} />
          <RunChoices projectId={projectId} template={template} value={choices} onChange={setChoices} />
          {template.allow_override_args_in_task && canOverrideArgs ? (
            <TextField
              label={t('tasks.arguments')}
              value={args}
              onChange={(e) => setArgs(e.target.value)}
              placeholder='["--verbose"]'
              error={!!errors.args}
              helperText={errors.args ?? t('tasks.argumentsHelp')}
            />
          ) : null}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button variant="contained" type="submit" form="new-task-form" disabled={create.isPending}>
          {action}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
