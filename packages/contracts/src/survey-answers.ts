import { ErrorCodes, type ErrorCode } from './errors.js';
import type { OptionsSource, SurveyOption, SurveyVarType } from './parameters.js';

/**
 * What answer checking needs of a run parameter (a template's survey variable). Structural, so
 * this file does not import the template schema that itself checks defaults with it.
 */
export interface SurveyParameter {
  name: string;
  title: string;
  type: SurveyVarType;
  values: SurveyOption[];
  default_value: string;
  required: boolean;
  min?: number | null | undefined;
  max?: number | null | undefined;
  regex?: string | null | undefined;
  options_source?: OptionsSource | null | undefined;
}

/** Why an answer was refused: a stable code, the English text, and the values the text names. */
export interface SurveyAnswerIssue {
  code: ErrorCode;
  message: string;
  params: Record<string, string | number>;
}

export type SurveyAnswerResult = { ok: true; value: unknown } | { ok: false; issue: SurveyAnswerIssue };

/** A refused answer and the request field it came in (`environment.<name>` or `secret.<name>`). */
export interface SurveyFieldIssue extends SurveyAnswerIssue {
  name: string;
  field: string;
}

const INTEGER = /^-?\d+$/;
const DECIMAL = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A whole-answer matcher for a parameter's pattern. */
export interface PatternMatcher {
  test(text: string): boolean;
}
/** Compiles a pattern; null when it does not compile. */
export type PatternCompiler = (source: string) => PatternMatcher | null;

const nativePattern: PatternCompiler = (source) => {
  try {
    return new RegExp(`^(?:${source})$`);
  } catch {
    return null;
  }
};
let patterns: PatternCompiler = nativePattern;

/**
 * Sets the engine every parameter pattern check uses (template checks and answers). The console
 * keeps JavaScript's; the server installs a linear-time one at start, so a manager's pattern
 * cannot stall it on a crafted answer or default.
 */
export function usePatternCompiler(compile: PatternCompiler): void {
  patterns = compile;
}

/** A parameter's regular expression as a whole-answer matcher; null when it does not compile. */
export function surveyRegex(source: string): PatternMatcher | null {
  return patterns(source);
}

/** Whether an answer counts as not given: absent, null, empty text or an empty list. */
export function isBlankAnswer(raw: unknown): boolean {
  return raw === undefined || raw === null || raw === '' || (Array.isArray(raw) && raw.length === 0);
}

const fail = (code: ErrorCode, message: string, params: Record<string, string | number>): SurveyAnswerResult => ({
  ok: false,
  issue: { code, message, params },
});

/** A valid calendar day written `YYYY-MM-DD`. */
function isDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!));
  return d.getUTCFullYear() === +m[1]! && d.getUTCMonth() === +m[2]! - 1 && d.getUTCDate() === +m[3]!;
}

/** A multiple choice answer: a list of texts, or (Semaphore's consoles send text) a JSON list or one value. */
function asList(raw: unknown): string[] | null {
  let v = raw;
  if (typeof v === 'string') {
    const text = v.trim();
    if (!text.startsWith('[')) return [v];
    try {
      v = JSON.parse(text);
    } catch {
      return null;
    }
  }
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' || typeof x === 'number')) return null;
  return [...new Set(v.map(String))];
}

/**
 * One given (not blank) answer checked against its parameter and turned into its stored type:
 * boolean → true/false, int/number → a number, multi_enum → a list of texts, the rest text.
 * Choices are checked against the static `values`, or not at all here when the options come from
 * an `options_source` (the server checks those against the live options). Strings and JSON types
 * are both accepted (Semaphore's console sends `"5"` and `"true"`).
 */
export function coerceSurveyAnswer(v: SurveyParameter, raw: unknown, compile: PatternCompiler = surveyRegex): SurveyAnswerResult {
  const title = v.title || v.name;
  switch (v.type) {
    case 'int':
    case 'number': {
      const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : null;
      const n = text !== null && (v.type === 'int' ? INTEGER : DECIMAL).test(text) ? Number(text) : NaN;
      if (v.type === 'int' && !Number.isSafeInteger(n))
        return fail(ErrorCodes.surveyValueInteger, `${title} must be integer`, { title });
      if (!Number.isFinite(n)) return fail(ErrorCodes.surveyValueNumber, `${title} must be a number`, { title });
      if (v.min != null && n < v.min)
        return fail(ErrorCodes.surveyValueMin, `${title} must be at least ${v.min}`, { title, min: v.min });
      if (v.max != null && n > v.max)
        return fail(ErrorCodes.surveyValueMax, `${title} must be at most ${v.max}`, { title, max: v.max });
      return { ok: true, value: n };
    }
    case 'boolean': {
      const text = typeof raw === 'string' ? raw.trim().toLowerCase() : raw;
      if (text === true || text === 'true') return { ok: true, value: true };
      if (text === false || text === 'false') return { ok: true, value: false };
      return fail(ErrorCodes.surveyValueBoolean, `${title} must be true or false`, { title });
    }
    case 'multi_enum': {
      const list = asList(raw);
      if (list === null) return fail(ErrorCodes.surveyValueList, `${title} must be a list of its values`, { title });
      const bad = v.options_source ? undefined : list.find((x) => !v.values.some((o) => o.value === x));
      if (bad !== undefined)
        return fail(ErrorCodes.surveyValueEnum, `${title} must be one of its values`, { title, value: bad });
      return { ok: true, value: list };
    }
    case '':
    case 'text':
    case 'secret':
    case 'enum':
    case 'date':
      break;
  }
  // The text types: a number or a boolean given as JSON is its text; a list or an object is not text.
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean')
    return fail(ErrorCodes.surveyValueText, `${title} must be text`, { title });
  const text = String(raw);
  if (v.type === 'date' && !isDate(text))
    return fail(ErrorCodes.surveyValueDate, `${title} must be a date (YYYY-MM-DD)`, { title });
  if (v.type === 'enum' && !v.options_source && !v.values.some((o) => o.value === text))
    return fail(ErrorCodes.surveyValueEnum, `${title} must be one of its values`, { title });
  if ((v.type === '' || v.type === 'text') && v.regex) {
    const re = compile(v.regex);
    if (re && !re.test(text))
      return fail(ErrorCodes.surveyValuePattern, `${title} does not match the required pattern`, { title });
  }
  return { ok: true, value: text };
}

/** A parameter's default as its typed answer; undefined when it has none or it is not valid. */
export function surveyDefault(v: SurveyParameter, compile: PatternCompiler = surveyRegex): unknown {
  if (v.default_value === '') return undefined;
  const r = coerceSurveyAnswer(v, v.default_value, compile);
  return r.ok ? r.value : undefined;
}

/**
 * Every parameter's answer, in one pass: defaults fill what is not given, required ones must be
 * there, each given one is checked and typed. `secrets` holds the answers of `secret` parameters
 * (their own request field). `partial`: what is not given is left out, nothing required (an
 * integration's own answers, which a delivery's values complete). Answers to names that are no
 * parameter are kept as they are (whether they may be given at all is the caller's rule).
 */
export function checkSurveyAnswers(
  vars: readonly SurveyParameter[],
  answers: Record<string, unknown>,
  secrets: Record<string, unknown> = {},
  opts: { partial?: boolean; compile?: PatternCompiler } = {},
): { environment: Record<string, unknown>; secret: Record<string, unknown>; issues: SurveyFieldIssue[] } {
  const compile = opts.compile ?? surveyRegex;
  const environment = { ...answers };
  const secret = { ...secrets };
  const issues: SurveyFieldIssue[] = [];
  for (const v of vars) {
    const isSecret = v.type === 'secret';
    const bag = isSecret ? secret : environment;
    const field = `${isSecret ? 'secret' : 'environment'}.${v.name}`;
    const raw = bag[v.name];
    if (isBlankAnswer(raw)) {
      delete bag[v.name];
      const fallback = opts.partial ? undefined : surveyDefault(v, compile);
      if (fallback !== undefined) bag[v.name] = fallback;
      else if (v.required && !opts.partial) {
        const title = v.title || v.name;
        issues.push({
          name: v.name,
          field,
          code: ErrorCodes.surveyValueRequired,
          message: `${title} is required`,
          params: { title },
        });
      }
      continue;
    }
    const r = coerceSurveyAnswer(v, raw, compile);
    if (r.ok) bag[v.name] = r.value;
    else issues.push({ name: v.name, field, ...r.issue });
  }
  return { environment, secret, issues };
}

/**
 * What a parameter's settings get wrong, for the template's checks: each with the setting it is
 * about. Limits for numbers only and in order, a pattern for text only and compiling, options for
 * choices, an options source for choices only, a default that is itself a valid answer.
 */
export function surveyParameterIssues(v: SurveyParameter): Array<{ path: string; issue: SurveyAnswerIssue }> {
  const out: Array<{ path: string; issue: SurveyAnswerIssue }> = [];
  const title = v.title || v.name;
  const add = (path: string, code: ErrorCode, message: string, params: Record<string, string | number> = {}) =>
    out.push({ path, issue: { code, message, params: { title, ...params } } });
  const numeric = v.type === 'int' || v.type === 'number';
  const choice = v.type === 'enum' || v.type === 'multi_enum';
  if (!numeric && (v.min != null || v.max != null))
    add(
      v.min != null ? 'min' : 'max',
      ErrorCodes.surveyLimitsNumericOnly,
      `${title}: only numbers have a smallest and largest value`,
    );
  else if (v.min != null && v.max != null && v.min > v.max)
    add('max', ErrorCodes.surveyLimitsOrder, `${title}: the largest value must not be below the smallest`);
  if (v.regex) {
    if (v.type !== '' && v.type !== 'text')
      add('regex', ErrorCodes.surveyRegexTextOnly, `${title}: only text parameters have a pattern`);
    else if (!surveyRegex(v.regex))
      add('regex', ErrorCodes.surveyRegexInvalid, `${title}: the pattern is not a valid regular expression`);
  }
  if (v.options_source && !choice)
    add(
      'options_source',
      ErrorCodes.surveyOptionsSourceChoiceOnly,
      `${title}: only choice parameters take options from a source`,
    );
  if (v.default_value !== '' && !out.some((x) => x.path === 'regex')) {
    const r = coerceSurveyAnswer(v, v.default_value);
    if (!r.ok)
      add(
        'default_value',
        ErrorCodes.surveyDefaultInvalid,
        `${title}: the default is not a valid answer (${r.issue.message})`,
      );
  }
  return out;
}
