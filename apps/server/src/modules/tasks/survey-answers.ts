import { checkSurveyAnswers, isBlankAnswer, type SurveyVar, type SurveyFieldIssue } from '@gantry/contracts';
import { ValidationError } from '../../platform/errors.js';
import { compileLinearPattern } from '../../platform/linear-pattern.js';

/**
 * Checks a choice answer against options that come from an `options_source` (inventory hosts,
 * another parameter, a URL): the dynamic-options module provides it. Resolves to an issue when
 * the answer is not among the live options, null when it is. `answer` is the typed answer (a text,
 * or a list of texts for `multi_enum`); `answers` every (typed) non-secret answer, for a cascade.
 */
export type DynamicOptionCheck = (
  variable: SurveyVar,
  answer: unknown,
  answers: Record<string, unknown>,
) => Promise<SurveyFieldIssue | null>;

export interface TypedAnswers {
  environment: Record<string, unknown>;
  secret: Record<string, unknown>;
}

/**
 * A task's answers checked against its template's parameters and typed for storage (the
 * contracts' rules, shared with the console): defaults fill in what is missing, `"5"` becomes 5
 * and `"true"` true. The first refusal is a 400 naming the answer's field (`environment.<name>`
 * or `secret.<name>`) and the parameter's title. `checkDynamicOption`: when given, answers of
 * parameters whose options come from a source are checked against the live options; without it
 * they are accepted as data. `partial`: nothing is required and no default applies (an
 * integration's own answers, which a delivery completes). `fieldPrefix`: where the answers sit in
 * the request when not at its top (`task_params.` for a schedule's or an integration's).
 */
export async function typedSurveyAnswers(
  vars: SurveyVar[],
  answers: Record<string, unknown>,
  secrets: Record<string, unknown>,
  opts: { partial?: boolean; checkDynamicOption?: DynamicOptionCheck | undefined; fieldPrefix?: string } = {},
): Promise<TypedAnswers> {
  const refusal = (i: SurveyFieldIssue) =>
    new ValidationError(i.message, { code: i.code, ...i.params, field: `${opts.fieldPrefix ?? ''}${i.field}` });
  const r = checkSurveyAnswers(vars, answers, secrets, { partial: opts.partial ?? false, compile: compileLinearPattern });
  const first = r.issues[0];
  if (first) throw refusal(first);
  if (opts.checkDynamicOption) {
    for (const v of vars) {
      if (!v.options_source || (v.type !== 'enum' && v.type !== 'multi_enum')) continue;
      const answer = r.environment[v.name];
      if (isBlankAnswer(answer)) continue;
      const issue = await opts.checkDynamicOption(v, answer, r.environment);
      if (issue) throw refusal(issue);
    }
  }
  return { environment: r.environment, secret: r.secret };
}
