import { z } from 'zod';

/**
 * Run parameters (a template's survey variables). Semaphore's types keep their names (`""` string,
 * `int`, `secret`, `enum`); Gantry adds the rest. A task's answers stay in its `environment` JSON
 * object, typed: `boolean` a JSON boolean, `int`/`number` a JSON number, `multi_enum` a list of
 * strings, the others strings (`date` as `YYYY-MM-DD`).
 */
export const SURVEY_VAR_TYPES = ['', 'int', 'secret', 'enum', 'text', 'number', 'boolean', 'multi_enum', 'date'] as const;
export type SurveyVarType = (typeof SURVEY_VAR_TYPES)[number];

/** Types whose answer is one or several of a list of options (static `values` or `options_source`). */
export const CHOICE_SURVEY_TYPES: readonly SurveyVarType[] = ['enum', 'multi_enum'];

/** Longest regular expression a string parameter may carry. */
export const SURVEY_REGEX_MAX = 500;

/** A choice parameter's option: what the console shows (`name`) and what the task gets (`value`). */
export const surveyOptionSchema = z.object({ name: z.string().trim(), value: z.string() });
export type SurveyOption = z.infer<typeof surveyOptionSchema>;

/**
 * Where a choice parameter's options come from instead of its static `values`:
 * - `inventory_hosts` / `inventory_groups`: the hosts or groups of the task's inventory (the
 *   template's, or the one chosen at run time), as `ansible-inventory --list` lists them in the sandbox;
 * - `parameter`: another parameter's answer picks the list (`options[<answer>]`), the cascade
 *   "region decides cluster";
 * - `url`: a JSON list (strings, or `{name, value}` objects) fetched by the server (timeout, size
 *   limit, no private or loopback address unless an admin allowed the host), cached briefly.
 */
export const optionsSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('inventory_hosts') }),
  z.object({ kind: z.literal('inventory_groups') }),
  z.object({
    kind: z.literal('parameter'),
    /** The name of the parameter whose answer chooses the list. */
    parameter: z.string().trim().min(1),
    options: z.record(z.string(), z.array(surveyOptionSchema)).default({}),
  }),
  z.object({ kind: z.literal('url'), url: z.string().trim().min(1).max(2000) }),
]);
export type OptionsSource = z.infer<typeof optionsSourceSchema>;
export const OPTIONS_SOURCE_KINDS = ['inventory_hosts', 'inventory_groups', 'parameter', 'url'] as const;

/**
 * `GET /api/project/{id}/templates/{template_id}/survey/{name}/options` query: the answers given so
 * far (JSON object text, for a `parameter` source) and the inventory chosen at run time, if any.
 */
export const surveyOptionsQuerySchema = z.object({
  answers: z.string().optional(),
  inventory_id: z.coerce.number().int().positive().optional(),
});

/**
 * The options of a choice parameter now. When the source failed, `error` says why (a stable
 * `code` beside it for the console) and `options` are the last good ones (empty when none).
 */
export const surveyOptionsSchema = z.object({
  options: z.array(surveyOptionSchema),
  error: z.string().nullable(),
  code: z.string().nullable(),
  /** When the options were read (ISO 8601); null when they never were. */
  fetched_at: z.string().nullable(),
});
export type SurveyOptions = z.infer<typeof surveyOptionsSchema>;

/**
 * A cascade's options (`parameter` source): the list its parent's answer picks (for a
 * multiple-choice parent, the lists of all its answers, each value once); none while the parent
 * has no answer. The server checks answers with it, the console offers them without a round trip.
 */
export function cascadeOptions(source: Extract<OptionsSource, { kind: 'parameter' }>, answers: Record<string, unknown>): SurveyOption[] {
  const parent = answers[source.parameter];
  const picks = (Array.isArray(parent) ? parent : [parent])
    .map((v) => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : ''))
    .filter((v) => v !== '');
  const out: SurveyOption[] = [];
  const seen = new Set<string>();
  for (const pick of picks) {
    // Own keys only: an answer such as "constructor" must not reach Object.prototype.
    const list = Object.prototype.hasOwnProperty.call(source.options, pick) ? (source.options[pick] ?? []) : [];
    for (const option of list) {
      if (seen.has(option.value)) continue;
      seen.add(option.value);
      out.push(option);
    }
  }
  return out;
}
