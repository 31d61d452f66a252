import { ErrorCodes, type Template } from '@gantry/contracts';
import { ValidationError } from '../../platform/errors.js';
import { typedSurveyAnswers } from '../tasks/survey-answers.js';
import { checkTaskVariables, parseJsonObject } from '../tasks/task-input.js';

const FIELD = 'task_params.environment';

/**
 * A schedule's (or an integration's) answers to its template's parameters, checked when it is
 * saved as they will be when it runs, and typed: the JSON object text to store. Secret
 * parameters are never answered here (the answers are stored and shown in clear). `partial`:
 * required parameters may be left out (an integration's deliveries complete its answers);
 * otherwise they must be answered unless they have a default. A refusal names
 * `task_params.environment.<name>`.
 */
export async function scheduleAnswers(
  template: Pick<Template, 'survey_vars' | 'allow_extra_vars_in_task'>,
  text: string,
  opts: { partial?: boolean; anyName?: boolean } = {},
): Promise<string> {
  const given = parseJsonObject(text, 'Environment', FIELD);
  checkTaskVariables(
    Object.keys(given),
    template.survey_vars,
    opts.anyName || template.allow_extra_vars_in_task,
    FIELD,
  );
  const secret = template.survey_vars.find((v) => v.type === 'secret' && v.name in given);
  if (secret)
    throw new ValidationError(`${secret.title} is a secret parameter: its answer cannot be stored here`, {
      code: ErrorCodes.surveySecretNotStored,
      title: secret.title,
      field: `${FIELD}.${secret.name}`,
    });
  const vars = template.survey_vars.filter((v) => v.type !== 'secret');
  const prefix = 'task_params.';
  if (!opts.partial) await typedSurveyAnswers(vars, given, {}, { fieldPrefix: prefix });
  // Stored as given (typed), without the defaults: a default changed later applies to later runs.
  return JSON.stringify(
    (await typedSurveyAnswers(vars, given, {}, { partial: true, fieldPrefix: prefix })).environment,
  );
}
