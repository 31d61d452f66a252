import { Stack, Typography } from '@mui/material';
import type { SurveyVar } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { SurveyFormValue, SurveyFormValues } from '../../../components/parameters/survey-answers-form';
import { SurveyFields } from '../../../components/parameters/survey-fields';
import { projectQueries } from '../../../lib/project-queries';

/**
 * The parameters a schedule answers for its template's runs: all but secret ones (a schedule's
 * answers are stored and shown in clear; a secret comes from the template's default). Null while
 * the templates load or when no template is chosen.
 */
export function useScheduleParameters(projectId: number, templateId: number | ''): SurveyVar[] | null {
  const templates = useQuery({ ...projectQueries.templates(projectId), enabled: !!templateId }).data;
  const template = templateId ? templates?.find((x) => x.id === templateId) : undefined;
  return template ? template.survey_vars.filter((v) => v.type !== 'secret') : null;
}

/** The schedule's answers to its template's parameters, under a heading; nothing when it has none. */
export function ScheduleAnswers(props: {
  projectId: number;
  templateId: number;
  vars: SurveyVar[];
  values: SurveyFormValues;
  errors: Record<string, string>;
  onChange(name: string, value: SurveyFormValue): void;
}) {
  const { t } = useTranslation();
  if (!props.vars.length) return null;
  return (
    <Stack spacing={1.5} role="group" aria-label={t('schedules.answers')}>
      <Typography variant="subtitle2">{t('schedules.answers')}</Typography>
      <SurveyFields {...props} />
    </Stack>
  );
}
