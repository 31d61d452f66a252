import { useEffect, useState } from 'react';
import {
  surveyErrors,
  type SurveyFormValue,
  type SurveyFormValues,
} from '../../../components/parameters/survey-answers-form';
import { joinEnvironment, parameterInOther, refusedAnswer, splitEnvironment } from './integration-answers';
import { useIntegrationParameters } from './integration-answers-fields';

/**
 * The integration form's answers to its template's parameters, typed controls beside the JSON
 * text of its other extra variables (`other`/`setOther`: that form field). The answers are null
 * until the template's parameters are known, and again after `reset` (another template chosen);
 * the stored extra variables are then split between the controls and the text.
 */
export function useIntegrationAnswers(args: {
  projectId: number;
  /** The chosen template ('' for none, or a workflow's integration). */
  templateId: number | '';
  other(): string;
  setOther(text: string): void;
  /** The save's failure: a refusal of one answer is shown at its control. */
  saveError: unknown;
  /** Called when the answer the server refused is edited (its message then goes). */
  onRefusedEdited(): void;
}) {
  const { other, setOther } = args;
  const params = useIntegrationParameters(args.projectId, args.templateId);
  const vars = params?.answered ?? null;
  const [answers, setAnswers] = useState<SurveyFormValues | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  useEffect(() => {
    if (!vars || answers !== null) return;
    const split = splitEnvironment(vars, other());
    setAnswers(split.answers);
    setOther(split.other);
  }, [vars, answers, other, setOther]);
  const refused = vars ? refusedAnswer(args.saveError, vars) : null;
  return {
    /** Props of IntegrationAnswersFields; null while there is nothing to show. */
    fields:
      params && answers && args.templateId
        ? {
            projectId: args.projectId,
            templateId: args.templateId,
            vars: params.answered,
            secrets: params.secrets,
            values: answers,
            errors: refused ? { [refused.name]: refused.text, ...errors } : errors,
            onChange: (name: string, value: SurveyFormValue) => {
              setAnswers({ ...answers, [name]: value });
              setErrors(({ [name]: _edited, ...rest }) => rest);
              if (refused?.name === name) args.onRefusedEdited();
            },
          }
        : null,
    /** Whether the template has parameters answered here (the text then holds only the others). */
    answered: !!vars?.length,
    /** The save failed on one of the answers shown. */
    refused: refused !== null,
    /** Every answer checked (nothing is required: deliveries may complete them); true when all are fine. */
    check(): boolean {
      const errs = vars && answers ? surveyErrors(vars, answers, true) : {};
      setErrors(errs);
      return !Object.keys(errs).length;
    },
    /** The first parameter the other variables' text also sets, or null. */
    clash: (text: string) => (vars ? parameterInOther(vars, text) : null),
    /** The extra variables to save: the typed answers with the other variables' text. */
    environment: (text: string) => (vars && answers ? joinEnvironment(vars, answers, text) : text),
    /** Another template was chosen: its parameters' answers start again from their defaults. */
    reset() {
      setAnswers(null);
      setErrors({});
    },
  };
}
