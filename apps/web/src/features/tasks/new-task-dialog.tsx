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
import { projectQueries } from '../../lib/project-queries';
import type { TaskLaunch } from '../../lib/task-launcher';
import { useCreateTask } from './api/tasks-api';
import { openTaskLog } from './task-log-host';
import { SurveyFields, checkSurvey } from './components/survey-fields';
import { TaskOptions } from './components/task-options';

/** The New task form for one launch (opened by NewTaskHost). */
export function NewTaskDialog({ launch, onClose }: { launch: TaskLaunch; onClose(): void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const { projectId, templateId, fromTaskId } = launch;
  const template = useQuery({ queryKey: ['project', projectId, 'template', templateId], queryFn: () => api.get<Template>(`/project/${projectId}/templates/${templateId}`) }).data;
  const previous = useQuery({ queryKey: ['task', fromTaskId], queryFn: () => api.get<Task>(`/project/${projectId}/tasks/${fromTaskId}`), enabled: !!fromTaskId }).data;
  const builds = useQuery({
    queryKey: ['project', projectId, 'template', template?.build_template_id, 'tasks', 'success'],
    queryFn: () => api.get<Task[]>(`/project/${projectId}/templates/${template!.build_template_id}/tasks?status=success`),
    enabled: template?.type === 'deploy' && !!template.build_template_id,
  }).data ?? [];
  const inventories = useQuery({ ...projectQueries.inventories(projectId), enabled: !!template?.task_params.allow_override_inventory }).data ?? [];
  const create = useCreateTask(projectId);
  const [message, setMessage] = useState('');
  const [answers, setAnswers] = useState<Record<string, string>>({});
  const [params, setParams] = useState<TaskParams>({ debug_level: 4 });
  const [branch, setBranch] = useState('');
  const [args, setArgs] = useState('');
  // Argument overrides are for managers and owners; the server refuses them from other roles.
  // Those who may edit templates may also always ask for debug output.
  const canManage = useProjectAccess(projectId).canManage;
  const canOverrideArgs = canManage;
  const [inventoryId, setInventoryId] = useState<number | ''>('');
  const [buildId, setBuildId] = useState<number | ''>('');
  const [errors, setErrors] = useState<Record<string, string>>({});

  useEffect(() => {
    // Re-run: copy the previous task's fields.
    if (!previous) return;
    setMessage(previous.message);
    setAnswers(Object.fromEntries(Object.entries(JSON.parse(previous.environment || '{}') as Record<string, unknown>).map(([k, v]) => [k, String(v)])));
    setParams({ debug_level: 4, ...previous.params });
    setBranch(previous.git_branch ?? '');
    setArgs(previous.arguments ?? '');
    setInventoryId(previous.inventory_id ?? '');
    setBuildId(previous.build_task_id ?? '');
  }, [previous]);

  // A new task starts with the survey's default answers; a re-run copies the previous task's.
  const [prefilled, setPrefilled] = useState(false);
  if (template && !fromTaskId && !prefilled) {
    setPrefilled(true);
    setAnswers(Object.fromEntries(template.survey_vars.filter((v) => v.default_value !== '').map((v) => [v.name, v.default_value])));
  }

  if (!template) return null;
  const mayDebug = template.task_params.allow_debug || canManage;
  const submit = async () => {
    const errs = checkSurvey(template.survey_vars, answers, t);
    if (template.type === 'deploy' && !buildId) errs.build = t('tasks.buildRequired');
    if (canOverrideArgs && args && parseArgumentList(args) === null) errs.args = t('tasks.argsInvalid');
    setErrors(errs);
    if (Object.keys(errs).length) return;
    const secretNames = new Set(template.survey_vars.filter((v) => v.type === 'secret').map((v) => v.name));
    const pick = (secret: boolean) => JSON.stringify(Object.fromEntries(Object.entries(answers).filter(([k, v]) => v !== '' && secretNames.has(k) === secret)));
    const task = await create
      .mutateAsync({
        template_id: templateId,
        message,
        environment: pick(false),
        secret: pick(true),
        // A re-run of someone else's debug task does not ask for what this user may not have.
        params: mayDebug ? params : { ...params, debug: undefined },
        git_branch: branch || null,
        arguments: (canOverrideArgs && args) || null,
        inventory_id: inventoryId || null,
        build_task_id: buildId || null,
      })
      .catch(() => null);
    if (!task) return;
    const q = new URLSearchParams(location.search);
    q.set('t', String(task.id));
    // In one render, not waiting for the address (the router changes it in a transition): this
    // form goes and the task's log (its code already loaded, see NewTaskHost) comes.
    openTaskLog(task.id);
    onClose();
    void navigate(`${location.pathname}?${q.toString()}`);
  };
  const action = template.type === 'build' ? t('templates.build') : template.type === 'deploy' ? t('templates.deploy') : t('templates.run');
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
            <TextField select label={t('tasks.buildVersion')} required value={buildId} onChange={(e) => setBuildId(Number(e.target.value))} error={!!errors.build} helperText={errors.build ?? ' '}>
              {builds.map((b) => (
                <MenuItem key={b.id} value={b.id}>
                  {b.version ?? `#${b.id}`} · #{b.id}
                </MenuItem>
              ))}
            </TextField>
          ) : null}
          <TextField label={t('tasks.message')} value={message} onChange={(e) => setMessage(e.target.value)} />
          <SurveyFields vars={template.survey_vars} values={answers} errors={errors} onChange={(n, v) => setAnswers({ ...answers, [n]: v })} />
          <TaskOptions template={template} params={params} inventories={inventories} inventoryId={inventoryId} mayDebug={mayDebug} onParams={setParams} onInventory={setInventoryId} />
          {template.allow_override_branch_in_task ? <TextField label={t('tasks.branch')} value={branch} onChange={(e) => setBranch(e.target.value)} placeholder={template.git_branch ?? ''} /> : null}
          {template.allow_override_args_in_task && canOverrideArgs ? (
            <TextField label={t('tasks.arguments')} value={args} onChange={(e) => setArgs(e.target.value)} placeholder='["--verbose"]' error={!!errors.args} helperText={errors.args ?? t('tasks.argumentsHelp')} />
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
