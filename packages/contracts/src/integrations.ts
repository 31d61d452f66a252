import { z } from 'zod';
import { coded, codedIssue } from './coded.js';
import { ErrorCodes } from './errors.js';
import { requiredIssue, requiredMessage, requiredName, requiredString } from './fields.js';
import { taskParamsSchema } from './tasks.js';
import { taskVariableIssue } from './variables.js';
import { optionalStartId, startTargetIssue } from './start-target.js';

/** How an incoming webhook proves who sent it (spec 02 §9). */
export const INTEGRATION_AUTH_METHODS = ['none', 'github', 'bitbucket', 'token', 'hmac', 'basic'] as const;
export const integrationAuthMethodSchema = z.enum(INTEGRATION_AUTH_METHODS);
export type IntegrationAuthMethod = z.infer<typeof integrationAuthMethodSchema>;

/**
 * An integration's method as answers carry it: none is `""`, Semaphore's own value, so Semaphore's
 * console shows its None item (and no secret field) when it edits one.
 */
export const integrationAuthMethodAnswerSchema = z.union([
  z.literal(''),
  integrationAuthMethodSchema.exclude(['none']),
]);
export type IntegrationAuthMethodAnswer = z.infer<typeof integrationAuthMethodAnswerSchema>;

/** The method an answer's `auth_method` stands for (`""` is none). */
export function authMethodOf(answer: IntegrationAuthMethodAnswer | IntegrationAuthMethod): IntegrationAuthMethod {
  return answer || 'none';
}

/** Only these methods read a header whose name the user chooses. */
export const AUTH_METHODS_WITH_HEADER: readonly IntegrationAuthMethod[] = ['token', 'hmac'];

/** The header a token or hmac integration reads when none is given (Semaphore's clients send none). */
export const DEFAULT_AUTH_HEADERS: Partial<Record<IntegrationAuthMethod, string>> = {
  token: 'Authorization',
  hmac: 'X-Hub-Signature-256',
};

export const MATCH_TYPES = ['body', 'header'] as const;
export const BODY_DATA_TYPES = ['json', 'string'] as const;
export const MATCH_METHODS = ['equals', 'unequals', 'contains'] as const;
export const VALUE_SOURCES = ['body', 'header'] as const;
export const VARIABLE_TYPES = ['environment', 'task'] as const;

/** Largest webhook body the receiver reads. */
export const INTEGRATION_BODY_LIMIT = 256 * 1024;

/** Random part of an alias URL `/api/integrations/{alias}`. */
export const INTEGRATION_ALIAS_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

/** What a task started by the integration carries: the same run options as a task. */
export const integrationTaskParamsSchema = z
  .object({
    message: z.string().trim().max(2000).optional(),
    params: taskParamsSchema.optional(),
    /** JSON object text of extra variables given to every run. */
    environment: z
      .string()
      .optional()
      .refine(
        (v) => v === undefined || v.trim() === '' || isJsonObject(v),
        coded('Extra variables must be a JSON object', ErrorCodes.jsonObjectRequired, { label_key: 'extra_variables' }),
      ),
  })
  .default({});

function isJsonObject(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}
export type IntegrationTaskParams = z.output<typeof integrationTaskParamsSchema>;

const optionalId = z.preprocess((v) => (v === '' || v === 0 ? null : v), z.coerce.number().int().positive().nullish());

export const integrationInputSchema = z
  .object({
    name: requiredName('Name'),
    // Either a template (Semaphore's clients send only this) or a workflow (Gantry's own): 0, '' and null are none.
    template_id: optionalStartId('Template'),
    workflow_id: optionalStartId('Workflow'),
    // Semaphore's value for none is "" (its console's None); null, "" and no value are all none.
    auth_method: z
      .enum(
        [...INTEGRATION_AUTH_METHODS, ''],
        coded(`Auth method must be one of ${INTEGRATION_AUTH_METHODS.join(', ')}`, ErrorCodes.mustBeOneOf, {
          name: 'auth_method',
          values: INTEGRATION_AUTH_METHODS.join(', '),
        }),
      )
      .nullish()
      .transform((v): IntegrationAuthMethod => v || 'none'),
    auth_header: z.string().trim().max(200).nullish(),
    auth_secret_id: optionalId,
    searchable: z.boolean().default(false),
    task_params: integrationTaskParamsSchema,
  })
  .superRefine((v, ctx) => {
    const target = startTargetIssue(v);
    if (target) ctx.addIssue({ code: 'custom', ...target });
    if (v.auth_method !== 'none' && !v.auth_secret_id) {
      ctx.addIssue({ code: 'custom', path: ['auth_secret_id'], ...requiredIssue('Secret') });
    }
    if (v.auth_header && !/^[A-Za-z0-9-]+$/.test(v.auth_header)) {
      ctx.addIssue({
        code: 'custom',
        path: ['auth_header'],
        ...codedIssue('Auth header must be a valid header name', ErrorCodes.headerNameInvalid),
      });
    }
    // The integration's extra variables become task input of every run it starts: the same name rules.
    const text = v.task_params.environment ?? '';
    const names = isJsonObject(text) ? Object.keys(JSON.parse(text) as object) : [];
    const name = names.find((n) => taskVariableIssue(n) !== null);
    const issue = name === undefined ? null : taskVariableIssue(name);
    if (name !== undefined && issue)
      ctx.addIssue({
        code: 'custom',
        path: ['task_params'],
        ...codedIssue(issue.message, issue.code, { variable: name }),
      });
  })
  .transform((raw) => {
    const v = { ...raw, template_id: raw.template_id ?? null, workflow_id: raw.workflow_id ?? null };
    return AUTH_METHODS_WITH_HEADER.includes(v.auth_method) && !v.auth_header
      ? { ...v, auth_header: DEFAULT_AUTH_HEADERS[v.auth_method] ?? null }
      : v;
  });
export type IntegrationInput = z.input<typeof integrationInputSchema>;

export const integrationSchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  name: z.string(),
  /** 0 for an integration that starts a workflow (Semaphore's clients read a number here; see docs/semaphore-compatibility.md). */
  template_id: z.number().int(),
  /** Gantry's own: the workflow it starts, null for a template's integration. */
  workflow_id: z.number().int().nullable(),
  /** The template's name, or the workflow's. */
  tpl_name: z.string(),
  auth_method: integrationAuthMethodAnswerSchema,
  auth_header: z.string().nullable(),
  auth_secret_id: z.number().int().nullable(),
  searchable: z.boolean(),
  task_params: integrationTaskParamsSchema,
});
export type Integration = z.infer<typeof integrationSchema>;

export const integrationAliasSchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  /** Null for a project-level alias, which reaches every searchable integration of the project. */
  integration_id: z.number().int().nullable(),
  alias: z.string(),
  /** Absolute when GANTRY_WEB_HOST is set, else `/api/integrations/{alias}`. */
  url: z.string(),
});
export type IntegrationAlias = z.infer<typeof integrationAliasSchema>;

export const matcherInputSchema = z
  .object({
    integration_id: z.coerce.number().int().positive().optional(),
    name: requiredName('Name'),
    match_type: z.enum(MATCH_TYPES, requiredMessage('Match source')),
    body_data_type: z.enum(BODY_DATA_TYPES).nullish(),
    key: requiredString('Key'),
    method: z.enum(MATCH_METHODS, requiredMessage('Comparison method')),
    value: requiredString('Value'),
  })
  .superRefine((v, ctx) => {
    if (v.match_type === 'body' && !v.body_data_type) {
      ctx.addIssue({ code: 'custom', path: ['body_data_type'], ...requiredIssue('Body data format') });
    }
  });
export type MatcherInput = z.input<typeof matcherInputSchema>;

export const matcherSchema = z.object({
  id: z.number().int(),
  integration_id: z.number().int(),
  name: z.string(),
  match_type: z.enum(MATCH_TYPES),
  body_data_type: z.enum(BODY_DATA_TYPES).nullable(),
  key: z.string(),
  method: z.enum(MATCH_METHODS),
  value: z.string(),
});
export type Matcher = z.infer<typeof matcherSchema>;

export const extractValueInputSchema = z
  .object({
    integration_id: z.coerce.number().int().positive().optional(),
    name: requiredName('Name'),
    value_source: z.enum(VALUE_SOURCES, requiredMessage('Value source')),
    body_data_type: z.enum(BODY_DATA_TYPES).nullish(),
    key: requiredString('Key'),
    // Semaphore's clients leave it out: an environment variable, as there.
    variable_type: z
      .enum(
        VARIABLE_TYPES,
        coded('Variable type must be environment or task', ErrorCodes.mustBeOneOf, {
          name: 'variable_type',
          values: VARIABLE_TYPES.join(', '),
        }),
      )
      .default('environment'),
    variable: requiredString('Variable'),
  })
  .superRefine((v, ctx) => {
    if (v.value_source === 'body' && !v.body_data_type) {
      ctx.addIssue({ code: 'custom', path: ['body_data_type'], ...requiredIssue('Body data type') });
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(v.variable)) {
      ctx.addIssue({
        code: 'custom',
        path: ['variable'],
        ...codedIssue('Variable must be letters, digits and underscores', ErrorCodes.variableNameInvalid, {
          variable: v.variable,
        }),
      });
    }
  });
export type ExtractValueInput = z.input<typeof extractValueInputSchema>;

export const extractValueSchema = z.object({
  id: z.number().int(),
  integration_id: z.number().int(),
  name: z.string(),
  value_source: z.enum(VALUE_SOURCES),
  body_data_type: z.enum(BODY_DATA_TYPES).nullable(),
  key: z.string(),
  variable_type: z.enum(VARIABLE_TYPES),
  variable: z.string(),
});
export type ExtractValue = z.infer<typeof extractValueSchema>;
