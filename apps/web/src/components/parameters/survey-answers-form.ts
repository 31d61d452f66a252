import { checkSurveyAnswers, type SurveyVar } from '@gantry/contracts';
import { codeText } from '../../lib/error-text';

/**
 * An answer as a form holds it while it is edited: text (numbers too, so a half-typed `-` is not
 * lost), a boolean for a switch, a list for a multiple choice.
 */
export type SurveyFormValue = string | boolean | string[];
export type SurveyFormValues = Record<string, SurveyFormValue>;

/**
 * The form value of a stored, default or text answer of a parameter (`"true"` for a switch, a
 * JSON list text for a multiple choice, as re-runs and Semaphore's tasks hold them).
 */
export function formValue(v: SurveyVar, stored: unknown): SurveyFormValue {
  if (v.type === 'boolean') return stored === true || stored === 'true';
  if (v.type === 'multi_enum') {
    if (Array.isArray(stored)) return stored.map(String);
    if (typeof stored === 'string' && stored.trim().startsWith('[')) {
      try {
        const list: unknown = JSON.parse(stored);
        return Array.isArray(list) ? list.map(String) : [];
      } catch {
        return [];
      }
    }
    return typeof stored === 'string' && stored ? [stored] : [];
  }
  return stored === undefined || stored === null ? '' : String(stored);
}

/**
 * The answers a form starts with: `stored` ones (a re-run's, a schedule's), else each parameter's
 * default. A boolean without a default starts off (false), as a switch shows it.
 */
export function initialSurveyValues(vars: SurveyVar[], stored?: Record<string, unknown> | null): SurveyFormValues {
  const out: SurveyFormValues = {};
  for (const v of vars) {
    const given = stored?.[v.name];
    if (given !== undefined) out[v.name] = formValue(v, given);
    else if (v.default_value !== '' || v.type === 'boolean') out[v.name] = formValue(v, v.default_value);
  }
  // Names that are no parameter (free extra variables of a re-run) are kept as text.
  for (const [k, x] of Object.entries(stored ?? {}))
    if (!(k in out)) out[k] = typeof x === 'string' ? x : JSON.stringify(x);
  return out;
}

/**
 * Every answer checked at once with the server's own rules (contracts' checkSurveyAnswers), in
 * the user's words, by parameter name; empty when all are fine. Choices from an options source
 * are left to the server (it knows the live options). `partial`: nothing is required (an
 * integration's answers, which its deliveries may complete).
 */
export function surveyErrors(vars: SurveyVar[], values: SurveyFormValues, partial = false): Record<string, string> {
  const { issues } = checkSurveyAnswers(vars, split(vars, values, false), split(vars, values, true), { partial });
  return Object.fromEntries(issues.map((i) => [i.name, codeText({ code: i.code, ...i.params }) ?? i.message]));
}

/**
 * The request's `environment` and `secret` (JSON object text), typed as the parameters say.
 * `partial`: only the answers given, without defaults (a schedule's, whose runs take the
 * template's defaults as they are then).
 */
export function surveyPayload(
  vars: SurveyVar[],
  values: SurveyFormValues,
  partial = false,
): { environment: string; secret: string } {
  const r = checkSurveyAnswers(vars, split(vars, values, false), split(vars, values, true), { partial });
  return { environment: JSON.stringify(r.environment), secret: JSON.stringify(r.secret) };
}

/** The secret (or the other) answers that are given; a boolean switch always is. */
function split(vars: SurveyVar[], values: SurveyFormValues, secret: boolean): Record<string, unknown> {
  const secretNames = new Set(vars.filter((v) => v.type === 'secret').map((v) => v.name));
  return Object.fromEntries(
    Object.entries(values).filter(
      ([k, x]) => secretNames.has(k) === secret && x !== '' && !(Array.isArray(x) && !x.length),
    ),
  );
}
