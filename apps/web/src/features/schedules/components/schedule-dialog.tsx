import {
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  MenuItem,
  Stack,
  TextField,
  ToggleButton,
  ToggleButtonGroup,
} from '@mui/material';
import {
  COMMIT_CHECK_INTERVALS,
  DEFAULT_CRON,
  parseCron,
  scheduleInputSchema,
  type CronBuild,
  type Schedule,
  type ScheduleInput,
  type ScheduleType,
} from '@gantry/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { focusFirstField } from '../../../components/focus-first-field';
import { FormError } from '../../../components/form-error';
import { api } from '../../../lib/api-client';
import { issueText } from '../../../lib/contract-resolver';
import { errorText } from '../../../lib/error-text';
import { projectQueries } from '../../../lib/project-queries';
import { CronBuilder } from './cron-builder';
import { NextRuns } from './next-runs';
import { StartTargetFields } from './start-target-fields';
import { ScheduleTypeFields, useIsTerraformTemplate } from './schedule-type-fields';
import { useDriftWorkspaces, WorkspaceSelect } from '../../terraform-plans/components/workspace-select';
import { ScheduleAnswers, useScheduleParameters } from './schedule-answers';
import {
  initialSurveyValues,
  surveyErrors,
  surveyPayload,
  type SurveyFormValues,
} from '../../../components/parameters/survey-answers-form';
import { startKindOf, WORKFLOW_NOT_CHOSEN, type StartKind } from '../api/workflow-choices';

const DEFAULT_CHECK = COMMIT_CHECK_INTERVALS[1].cron;
/** Any builder state: parseCron only needs it for the choices an expression leaves open. */
const ANY_BUILD: CronBuild = { timing: 'daily', minute: 0, hour: 0, day: 1, month: 1, weekday: 1 };

/** New or edit schedule: name, what it runs (a template or a workflow), and a cron from the builder, raw, or (templates only) a commit-check interval. */
export function ScheduleDialog({
  projectId,
  item,
  templateId,
  onClose,
}: {
  projectId: number;
  item: Schedule | null;
  templateId?: number;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const repositories = useQuery(projectQueries.repositories(projectId)).data ?? [];
  const [name, setName] = useState(item?.name ?? '');
  // A template's schedule or a workflow's (its template_id is 0 then).
  const [kind, setKind] = useState<StartKind>(startKindOf(item));
  const [template, setTemplate] = useState<number | ''>(item?.template_id || templateId || '');
  const [workflow, setWorkflow] = useState<number | ''>(item?.workflow_id ?? '');
  // Two values, never overwriting each other: the cron a time schedule runs on, and how often a
  // "run on new commit" schedule checks its branch. The checkbox picks which one is saved.
  const [cron, setCron] = useState(item?.cron_format ?? DEFAULT_CRON);
  const [checkCron, setCheckCron] = useState(item?.repository_id ? item.cron_format : DEFAULT_CHECK);
  // A stored expression the builder can show opens in the builder.
  const [mode, setMode] = useState<'raw' | 'builder'>(
    item && parseCron(item.cron_format, ANY_BUILD) ? 'builder' : 'raw',
  );
  const [commitChecked, setOnCommit] = useState(!!item?.repository_id);
  // A Terraform/OpenTofu template's schedule may be a drift check (plan only), optionally -refresh-only.
  const [scheduleType, setScheduleType] = useState<ScheduleType>(item?.type ?? '');
  const [refreshOnly, setRefreshOnly] = useState(!!item?.task_params?.refresh_only);
  const [workspace, setWorkspace] = useState<number | ''>(item?.task_params?.inventory_id ?? '');
  const terraform = useIsTerraformTemplate(projectId, kind === 'template' ? template : '');
  const driftCheck = kind === 'template' && terraform && scheduleType === 'drift_check';
  const driftWorkspaces = useDriftWorkspaces(projectId, driftCheck ? template : '').workspaces;
  // "Run on new commit" starts a template only (and never a drift check).
  const onCommit = kind === 'template' && commitChecked && !driftCheck;
  const saved = onCommit ? checkCron : cron;
  const [repository, setRepository] = useState<number | ''>(item?.repository_id ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  // Answers to the template's parameters: the stored ones for the stored template, else its defaults
  // (null until the template's parameters are known, and again when another template is chosen).
  const vars = useScheduleParameters(projectId, kind === 'template' ? template : '');
  const [answers, setAnswers] = useState<SurveyFormValues | null>(null);
  const [answerErrors, setAnswerErrors] = useState<Record<string, string>>({});
  if (vars && answers === null) {
    const stored = item?.task_params && item.template_id === template ? item.task_params.environment : null;
    setAnswers(initialSurveyValues(vars, stored ? (JSON.parse(stored) as Record<string, unknown>) : null));
  }
  /** An edited field's message goes away until the next save attempt. */
  const clear = (field: string) => setErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => k !== field)));
  const save = useMutation({
    mutationFn: async (body: ScheduleInput) => {
      if (item) await api.put(`/project/${projectId}/schedules/${item.id}`, body);
      else await api.post(`/project/${projectId}/schedules`, body);
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: ['project', projectId, 'schedules'] }),
  });
  const submit = async () => {
    // Only the chosen one is sent; null clears the other on an edit.
    const target =
      kind === 'template'
        ? { template_id: template || undefined, workflow_id: null }
        : { template_id: null, workflow_id: workflow || WORKFLOW_NOT_CHOSEN };
    // A drift check's workspace when the template has several (none: the template's default).
    const chosen = workspace && driftWorkspaces.some((w) => w.id === workspace) ? { inventory_id: workspace } : {};
    const drift = { refresh_only: refreshOnly, ...chosen };
    const body = {
      name,
      ...target,
      cron_format: saved,
      repository_id: onCommit ? repository || undefined : null,
      active: item?.active ?? true,
      type: driftCheck ? ('drift_check' as const) : ('' as const),
      // None for a workflow's schedule or a template without parameters (a null clears stored ones).
      task_params:
        vars?.length && answers
          ? {
              environment: surveyPayload(vars, answers, true).environment,
              ...(driftCheck ? drift : {}),
            }
          : driftCheck
            ? drift
            : null,
    };
    const r = scheduleInputSchema.safeParse(body);
    const errs: Record<string, string> = {};
    if (!r.success) for (const i of r.error.issues) errs[String(i.path[0])] ??= issueText(i);
    if (onCommit && !repository) errs.repository_id = t('schedules.repositoryRequired');
    const answerErrs = vars && answers ? surveyErrors(vars, answers) : {};
    setAnswerErrors(answerErrs);
    if (Object.keys(answerErrs).length) errs.task_params = Object.values(answerErrs)[0]!;
    if (!errs.cron_format) {
      // The server answers 400 with the reason for a bad cron (as Semaphore's does); any failure blocks saving.
      const problem = await api.post(`/project/${projectId}/schedules/validate`, { cron_format: saved }).then(
        () => null,
        (e: unknown) => errorText(e) || t('schedules.invalidCron'),
      );
      if (problem !== null) errs.cron_format = problem;
    }
    setErrors(errs);
    if (Object.keys(errs).length) return;
    if (
      await save.mutateAsync(body as ScheduleInput).then(
        () => true,
        () => false,
      )
    )
      onClose();
  };
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{item ? t('schedules.editTitle') : t('schedules.newTitle')}</DialogTitle>
      <DialogContent>
        <Stack
          spacing={1.5}
          component="form"
          ref={focusFirstField}
          id="schedule-form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
          sx={{ pt: 1 }}
        >
          <FormError error={save.error} />
          {/* Optional, as in Semaphore: a schedule without a name is named after its cron expression. */}
          <TextField
            label={t('common.name')}
            value={name}
            placeholder={saved}
            onChange={(e) => {
              setName(e.target.value);
              clear('name');
            }}
            error={!!errors.name}
            helperText={errors.name ?? ' '}
          />
          <StartTargetFields
            projectId={projectId}
            kind={kind}
            onKind={(k) => {
              setKind(k);
              clear('template_id');
              clear('workflow_id');
              clear('repository_id');
            }}
            templateId={template}
            onTemplate={(id) => {
              setTemplate(id);
              setAnswers(null);
              setAnswerErrors({});
              clear('template_id');
            }}
            workflowId={workflow}
            onWorkflow={(id) => {
              setWorkflow(id);
              clear('workflow_id');
            }}
            templateError={errors.template_id}
            workflowError={errors.workflow_id}
          />
          {kind === 'template' && template && vars && answers ? (
            <ScheduleAnswers
              projectId={projectId}
              templateId={template}
              vars={vars}
              values={answers}
              errors={answerErrors}
              onChange={(n, v) => {
                setAnswers({ ...answers, [n]: v });
                setAnswerErrors(({ [n]: _edited, ...rest }) => rest);
              }}
            />
          ) : null}
          {kind === 'template' && terraform ? (
            <ScheduleTypeFields
              type={scheduleType}
              refreshOnly={refreshOnly}
              error={errors.type}
              onType={(v) => {
                setScheduleType(v);
                clear('type');
              }}
              onRefreshOnly={setRefreshOnly}
            />
          ) : null}
          {driftCheck && template ? (
            <WorkspaceSelect
              projectId={projectId}
              templateId={template}
              value={workspace}
              error={errors.task_params}
              onChange={(v) => {
                setWorkspace(v);
                clear('task_params');
              }}
            />
          ) : null}
          {kind === 'template' && !driftCheck ? (
            <FormControlLabel
              control={
                <Checkbox
                  checked={onCommit}
                  onChange={(e) => {
                    setOnCommit(e.target.checked);
                    clear('cron_format');
                  }}
                />
              }
              label={t('schedules.onCommit')}
            />
          ) : null}
          {onCommit ? (
            <>
              <TextField
                select
                label={t('schedules.repository')}
                required
                value={repository}
                onChange={(e) => {
                  setRepository(Number(e.target.value));
                  clear('repository_id');
                }}
                error={!!errors.repository_id}
                helperText={errors.repository_id ?? ' '}
              >
                {repositories.map((r) => (
                  <MenuItem key={r.id} value={r.id}>
                    {r.name}
                  </MenuItem>
                ))}
              </TextField>
              <TextField
                select
                label={t('schedules.checkEvery')}
                value={checkCron}
                onChange={(e) => {
                  setCheckCron(e.target.value);
                  clear('cron_format');
                }}
                error={!!errors.cron_format}
                helperText={errors.cron_format ?? ' '}
              >
                {COMMIT_CHECK_INTERVALS.map((c) => (
                  <MenuItem key={c.key} value={c.cron}>
                    {t(`schedules.intervals.${c.key}`)}
                  </MenuItem>
                ))}
                {/* A check cron set through the API that is none of the intervals: shown as it is, kept unless changed. */}
                {COMMIT_CHECK_INTERVALS.some((c) => c.cron === checkCron) ? null : (
                  <MenuItem value={checkCron} sx={{ fontFamily: 'monospace' }}>
                    {checkCron}
                  </MenuItem>
                )}
              </TextField>
            </>
          ) : (
            <>
              <ToggleButtonGroup
                size="small"
                exclusive
                value={mode}
                onChange={(_e, v: 'raw' | 'builder' | null) => v && setMode(v)}
              >
                <ToggleButton value="builder">{t('schedules.builder')}</ToggleButton>
                <ToggleButton value="raw">{t('schedules.raw')}</ToggleButton>
              </ToggleButtonGroup>
              {mode === 'builder' ? (
                <CronBuilder
                  cron={cron}
                  onChange={(c) => {
                    setCron(c);
                    clear('cron_format');
                  }}
                />
              ) : null}
              <TextField
                label={t('schedules.cronUtc')}
                required
                value={cron}
                onChange={(e) => {
                  setCron(e.target.value);
                  clear('cron_format');
                }}
                error={!!errors.cron_format}
                helperText={errors.cron_format ?? t('schedules.cronHelp')}
                slotProps={{ htmlInput: { style: { fontFamily: 'monospace' } } }}
              />
              <NextRuns projectId={projectId} cron={cron} />
            </>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button type="submit" form="schedule-form" variant="contained" disabled={save.isPending}>
          {item ? t('common.save') : t('common.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
