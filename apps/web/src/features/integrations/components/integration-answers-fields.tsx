import { Stack, Typography } from '@mui/material';
import type { SurveyVar } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { SurveyFormValue, SurveyFormValues } from '../../../components/parameters/survey-answers-form';
import { SurveyFields } from '../../../components/parameters/survey-fields';
import { projectQueries } from '../../../lib/project-queries';

/**
 * The parameters of the integration's template: `answered`, those it stores answers to (all but
 * secret ones, which the server refuses to store: their runs take the template's default), and
 * whether it has secret ones. Null while the templates load or when no template is chosen.
 */
export function useIntegrationParameters(
  projectId: number,
  templateId: number | '',
): { answered: SurveyVar[]; secrets: boolean } | null {
  const templates = useQuery({ ...projectQueries.templates(projectId), enabled: !!templateId }).data;
  const template = templateId ? templates?.find((x) => x.id === templateId) : undefined;
  if (!template) return null;
  return {
    answered: template.survey_vars.filter((v) => v.type !== 'secret'),
    secrets: template.survey_vars.some((v) => v.type === 'secret'),
  };
}

/** The integration's answers to its template's parameters, under a heading; nothing when it has none. */
export function IntegrationAnswersFields(props: {
  projectId: number;
  templateId: number;
  vars: SurveyVar[];
  /** The template also has secret parameters (not asked here). */
  secrets: boolean;
  values: SurveyFormValues;
  errors: Record<string, string>;
  onChange(name: string, value: SurveyFormValue): void;
}) {
  const { t } = useTranslation();
  const { secrets, ...fields } = props;
  if (!props.vars.length && !secrets) return null;
  return (
    <Stack spacing={1.5} role="group" aria-label={t('integrations.answers')} sx={{ pb: 1 }}>
      <div>
        <Typography variant="subtitle2">{t('integrations.answers')}</Typography>
        <Typography variant="body2" color="text.secondary">
          {t('integrations.answersHelp')}
          {secrets ? ` ${t('integrations.secretsNotStored')}` : ''}
        </Typography>
      </div>
      <SurveyFields {...fields} />
    </Stack>
  );
}
