import type { SurveyVar } from '@gantry/contracts';
import { ApiError } from '../../../lib/api-client';
import { errorText } from '../../../lib/error-text';
import {
  initialSurveyValues,
  surveyPayload,
  type SurveyFormValues,
} from '../../../components/parameters/survey-answers-form';

/** Where the server names a refused answer of an integration (`task_params.environment.<name>`). */
const ANSWER_FIELD = 'task_params.environment.';

/** A JSON object text's entries; null for blank text or anything but an object. */
function objectOf(text: string | undefined): Record<string, unknown> | null {
  if (!text?.trim()) return null;
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * A stored integration's extra variables split for the form: the answers to the template's
 * parameters (for their typed controls, defaults for those not answered) and the other
 * variables as JSON text (blank when none). Text that is no object stays whole in `other`.
 */
export function splitEnvironment(vars: SurveyVar[], text: string): { answers: SurveyFormValues; other: string } {
  const stored = objectOf(text);
  if (stored === null) return { answers: initialSurveyValues(vars), other: text };
  const names = new Set(vars.map((v) => v.name));
  const own = Object.fromEntries(Object.entries(stored).filter(([k]) => names.has(k)));
  const rest = Object.fromEntries(Object.entries(stored).filter(([k]) => !names.has(k)));
  return { answers: initialSurveyValues(vars, own), other: Object.keys(rest).length ? JSON.stringify(rest) : '' };
}

/**
 * The `task_params.environment` to save: the typed answers given, with the other variables.
 * Other text that is no JSON object is returned as it is, for the contract to refuse at its field.
 */
export function joinEnvironment(vars: SurveyVar[], answers: SurveyFormValues, other: string): string {
  const typed = JSON.parse(surveyPayload(vars, answers, true).environment) as Record<string, unknown>;
  const rest = objectOf(other);
  if (rest === null && other.trim()) return other;
  const all = { ...rest, ...typed };
  return Object.keys(all).length ? JSON.stringify(all) : '';
}

/** The first parameter the other variables also set (it has its own control), or null. */
export function parameterInOther(vars: SurveyVar[], other: string): string | null {
  const rest = objectOf(other) ?? {};
  return vars.find((v) => v.name in rest)?.name ?? null;
}

/**
 * The server's refusal of one of the answers shown (its field names it), as that parameter's
 * message in the user's words; null for any other failure (shown atop the form).
 */
export function refusedAnswer(error: unknown, vars: SurveyVar[]): { name: string; text: string } | null {
  const field = error instanceof ApiError ? error.body?.field : undefined;
  if (typeof field !== 'string' || !field.startsWith(ANSWER_FIELD)) return null;
  const name = field.slice(ANSWER_FIELD.length);
  return vars.some((v) => v.name === name) ? { name, text: errorText(error) } : null;
}
