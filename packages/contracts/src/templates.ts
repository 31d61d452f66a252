import { z } from 'zod';
import { appIdSchema, isTerraformApp } from './apps.js';
import { INCORRECT_BRANCH, isValidBranch } from './branches.js';
import { codedIssue } from './coded.js';
import { ErrorCodes } from './errors.js';
import {
  boundedText,
  description,
  hasControlCharacters,
  requiredIssue,
  requiredMessage,
  requiredName,
  requiredString,
  singleLine,
  typedFields,
} from './fields.js';
import { taskVariableIssue } from './variables.js';
import { taskSchema } from './tasks.js';
import { approvalPolicySchema } from './approvals.js';
import { driftSchema, terraformPolicySchema } from './terraform-plan.js';
import { SURVEY_VAR_TYPES, optionsSourceSchema, surveyOptionSchema } from './parameters.js';
import { surveyParameterIssues } from './survey-answers.js';

export const TEMPLATE_TYPES = ['', 'build', 'deploy'] as const;
export const templateTypeSchema = z.enum(TEMPLATE_TYPES);
export type TemplateType = z.infer<typeof templateTypeSchema>;

export { SURVEY_VAR_TYPES };

/**
 * A run parameter's fields, without the checks of its settings: what a stored template is read
 * with, so one saved before a rule existed (an integer's default `abc`) is still shown and can be
 * edited rather than failing every read. A saved one goes through surveyVarSchema.
 */
export const surveyVarFieldsSchema = z.object({
  name: requiredName('Variable name'),
  title: requiredString('Variable title'),
  description: description(),
  type: z.enum(SURVEY_VAR_TYPES).default(''),
  values: z.array(surveyOptionSchema).default([]),
  /**
   * Text as in Semaphore: `true`/`false` for a boolean, a JSON list of values for a multiple
   * choice, `YYYY-MM-DD` for a date.
   */
  default_value: z.string().default(''),
  required: z.boolean().default(false),
  /** `int` and `number`: the smallest and largest answer accepted. */
  min: z.number().nullish(),
  max: z.number().nullish(),
  /**
   * String and text: a regular expression the whole answer must match. The server runs it with RE2
   * (JavaScript's syntax without backreferences and lookaround), which refuses the rest on save.
   */
  regex: z.string().max(500).nullish(),
  /** Choice types: where the options come from when not from `values`. */
  options_source: optionsSourceSchema.nullish(),
});

/**
 * Semaphore's clients write a multiple choice as type `select` with a JSON list default, and may
 * send `null` for an empty default or list: read as Gantry's `multi_enum` and text.
 */
function semaphoreSurveyShape(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const v: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  if (v.type === 'select') v.type = 'multi_enum';
  if (v.type === null) v.type = '';
  if (v.values === null) v.values = [];
  const d = v.default_value;
  if (d === null) v.default_value = '';
  else if (Array.isArray(d))
    v.default_value = v.type === 'multi_enum' ? JSON.stringify(d.map(String)) : String(d[0] ?? '');
  else if (typeof d === 'number' || typeof d === 'boolean') v.default_value = String(d);
  return v;
}

// Input only: a preprocess cannot be encoded, and answers are written with the schemas above.
export const surveyVarSchema = z.preprocess(semaphoreSurveyShape, surveyVarFieldsSchema).superRefine(
  (v, ctx) => {
    for (const { path, issue } of surveyParameterIssues(v))
      ctx.addIssue({ code: 'custom', path: [path], ...codedIssue(issue.message, issue.code, issue.params) });
    if (v.type !== 'enum' && v.type !== 'multi_enum') return;
    // Options from a source need no static values (they may still be given, as a fallback to show).
    if (v.values.length === 0 && !v.options_source)
      ctx.addIssue({
        code: 'custom',
        path: ['values'],
        ...codedIssue('Enumeration must have values.', ErrorCodes.enumValuesRequired),
      });
    if (v.values.some((x) => !x.name))
      ctx.addIssue({
        code: 'custom',
        path: ['values'],
        ...codedIssue('Value name cannot be empty.', ErrorCodes.enumValueNameRequired),
      });
    const names = v.values.map((x) => x.name);
    if (new Set(names).size !== names.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['values'],
        ...codedIssue('Enumeration values must have unique names.', ErrorCodes.enumValuesUnique),
      });
    }
  },
  { when: typedFields('type', 'values', 'default_value', 'min', 'max', 'regex', 'options_source') },
);
export type SurveyVar = z.output<typeof surveyVarSchema>;

/** A vault script is a client script: its name ends in -client, with an optional extension. */
export const VAULT_SCRIPT_PATTERN = /-client(\.[A-Za-z0-9]+)?$/;

export const vaultSchema = z
  .object({
    id: z.number().int().optional(),
    name: z
      .string()
      .nullish()
      .transform((v) => (v ?? '').trim().toLowerCase() || null),
    type: z.enum(['password', 'script'], requiredMessage('Type')),
    vault_key_id: z.coerce.number().int().positive().nullish(),
    script: z.string().trim().nullish(),
  })
  .superRefine((v, ctx) => {
    if (v.type === 'password' && !v.vault_key_id)
      ctx.addIssue({ code: 'custom', path: ['vault_key_id'], ...requiredIssue('Vault password') });
    if (v.type === 'script' && !(v.script && VAULT_SCRIPT_PATTERN.test(v.script))) {
      ctx.addIssue({
        code: 'custom',
        path: ['script'],
        ...codedIssue('Script name must end with -client', ErrorCodes.vaultScriptName),
      });
    }
  });
export type Vault = z.output<typeof vaultSchema>;

export const templateTaskParamsSchema = z
  .object({
    limit: z.array(z.string()).default([]),
    tags: z.array(z.string()).default([]),
    skip_tags: z.array(z.string()).default([]),
    allow_debug: z.boolean().default(false),
    allow_override_limit: z.boolean().default(false),
    allow_override_tags: z.boolean().default(false),
    allow_override_skip_tags: z.boolean().default(false),
    allow_override_inventory: z.boolean().default(false),
    auto_approve: z.boolean().default(false),
    allow_auto_approve: z.boolean().default(false),
    allow_destroy: z.boolean().default(false),
    /**
     * Run-time choices (Gantry's own): the inventories (Terraform workspaces for Terraform apps) a
     * task may choose when allow_override_inventory is on; empty: any inventory of the project.
     */
    inventory_choices: z.array(z.number().int().positive()).default([]),
    /** Whether a task may choose its variable group (one of environment_choices, or any when empty). */
    allow_override_environment: z.boolean().default(false),
    environment_choices: z.array(z.number().int().positive()).default([]),
    /** Branches a task may choose when allow_override_branch_in_task is on; empty: any branch. */
    branch_choices: z.array(z.string()).default([]),
    /** Terraform/OpenTofu governance (Gantry's own): rules every plan of the template meets before confirmation is offered; null: none. */
    policy: terraformPolicySchema.nullish(),
  })
  .default({
    limit: [],
    tags: [],
    skip_tags: [],
    allow_debug: false,
    allow_override_limit: false,
    allow_override_tags: false,
    allow_override_skip_tags: false,
    allow_override_inventory: false,
    auto_approve: false,
    allow_auto_approve: false,
    allow_destroy: false,
    inventory_choices: [],
    allow_override_environment: false,
    environment_choices: [],
    branch_choices: [],
  });
export type TemplateTaskParams = z.output<typeof templateTaskParamsSchema>;

/** `arguments`: a JSON list of strings, kept as text. */
export function parseArgumentList(text: string | null | undefined): string[] | null {
  if (!text || !text.trim()) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : null;
  } catch {
    return null;
  }
}

const optionalId = z.preprocess((v) => (v === '' || v === 0 ? null : v), z.coerce.number().int().positive().nullish());

export const templateInputSchema = z
  .object({
    name: requiredName('Name'),
    description: description(),
    type: templateTypeSchema.default(''),
    app: appIdSchema.default('ansible'),
    playbook: boundedText('Playbook filename', 1024).default(''),
    inventory_id: optionalId,
    repository_id: z.coerce.number(requiredMessage('Repository')).int().positive(requiredMessage('Repository')),
    /** Required unless environment_ids is given (then it is that list's first). */
    environment_id: optionalId,
    /**
     * Gantry's own, in order: several variable groups merged (later wins, secrets too) and several
     * inventories passed as repeated `-i`. When given, the first is environment_id / inventory_id.
     */
    environment_ids: z.array(z.coerce.number().int().positive()).nullish(),
    inventory_ids: z.array(z.coerce.number().int().positive()).nullish(),
    view_id: optionalId,
    git_branch: boundedText('Branch').nullish(),
    runner_tag: singleLine('Runner tag', 100).nullish(),
    start_version: singleLine('Start version').nullish(),
    build_template_id: optionalId,
    autorun: z.boolean().default(false),
    arguments: z.string().nullish(),
    allow_override_args_in_task: z.boolean().default(false),
    allow_override_branch_in_task: z.boolean().default(false),
    /** Whether a task may give extra variables beyond the survey's (off: survey answers only). */
    allow_extra_vars_in_task: z.boolean().default(false),
    suppress_success_alerts: z.boolean().default(false),
    survey_vars: z.array(surveyVarSchema).default([]),
    vaults: z.array(vaultSchema).default([]),
    task_params: templateTaskParamsSchema,
    /** Tasks of this template wait in `waiting_approval` until approved; null: they start at once. */
    approval_policy: approvalPolicySchema.nullish(),
  })
  .superRefine(
    (t, ctx) => {
      const issue = (path: string, coded: ReturnType<typeof codedIssue>) =>
        ctx.addIssue({ code: 'custom', path: [path], ...coded });
      // Ansible runs a playbook; script apps (built-in or custom) run a script, and say so.
      if (!t.playbook && !isTerraformApp(t.app) && t.app !== 'pulumi')
        issue('playbook', requiredIssue(t.app === 'ansible' ? 'Playbook filename' : 'Script filename'));
      if (
        t.playbook &&
        (t.playbook.startsWith('-') ||
          t.playbook.startsWith('/') ||
          hasControlCharacters(t.playbook) ||
          t.playbook.split('/').includes('..'))
      ) {
        issue('playbook', codedIssue('Playbook must be a path inside the repository', ErrorCodes.playbookPathInvalid));
      }
      if (!t.environment_id && !t.environment_ids?.length) issue('environment_id', requiredIssue('Variable group'));
      if (t.app === 'ansible' && !t.inventory_id && !t.inventory_ids?.length)
        issue('inventory_id', requiredIssue('Inventory'));
      for (const [field, label_key] of [
        ['environment_ids', 'variable_group'],
        ['inventory_ids', 'inventory'],
      ] as const) {
        const ids = t[field] ?? [];
        if (new Set(ids).size !== ids.length)
          issue(field, codedIssue('The same one is listed twice', ErrorCodes.duplicateIds, { label_key }));
      }
      if (t.type === 'build' && !t.start_version) issue('start_version', requiredIssue('Start version'));
      if (t.type === 'deploy' && !t.build_template_id) issue('build_template_id', requiredIssue('Build template'));
      if (parseArgumentList(t.arguments) === null)
        issue('arguments', codedIssue('Arguments must be a JSON list of strings', ErrorCodes.argumentsNotList));
      if (t.git_branch && !isValidBranch(t.git_branch))
        issue('git_branch', codedIssue(INCORRECT_BRANCH, ErrorCodes.incorrectBranch));
      // Survey answers are task input: a survey may only ask for names task input may take.
      t.survey_vars.forEach((v, i) => {
        const problem = v.name ? taskVariableIssue(v.name) : null;
        if (problem)
          ctx.addIssue({
            code: 'custom',
            path: ['survey_vars', i, 'name'],
            ...codedIssue(problem.message, problem.code, { variable: v.name }),
          });
      });
      // A cascading options source follows another parameter of this template.
      t.survey_vars.forEach((v, i) => {
        const src = v.options_source;
        if (src?.kind !== 'parameter') return;
        if (src.parameter === v.name || !t.survey_vars.some((x) => x.name === src.parameter))
          ctx.addIssue({
            code: 'custom',
            path: ['survey_vars', i, 'options_source'],
            ...codedIssue(
              `${v.title}: the options follow ${src.parameter}, which is no other parameter of this template`,
              ErrorCodes.surveyOptionsParameterUnknown,
              { title: v.title, parameter: src.parameter },
            ),
          });
      });
      // A vault whose name an earlier one already has is flagged at its name.
      const names = t.vaults.map((v) => v.name ?? '');
      names.forEach((n, i) => {
        if (names.indexOf(n) !== i) {
          const refusal = n
            ? codedIssue('Vault names must be unique', ErrorCodes.vaultNamesUnique)
            : codedIssue('Only one vault may have no name', ErrorCodes.vaultUnnamedOnce);
          ctx.addIssue({ code: 'custom', path: ['vaults', i, 'name'], ...refusal });
        }
      });
    },
    {
      when: typedFields(
        'playbook',
        'arguments',
        'git_branch',
        'survey_vars',
        'vaults',
        'environment_id',
        'environment_ids',
        'inventory_id',
        'inventory_ids',
      ),
    },
  );
export type TemplateInput = z.input<typeof templateInputSchema>;

export const templateSchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  name: z.string(),
  description: z.string(),
  type: templateTypeSchema,
  app: z.string(),
  playbook: z.string(),
  inventory_id: z.number().int().nullable(),
  repository_id: z.number().int(),
  environment_id: z.number().int(),
  /** Every variable group in merge order; the first is environment_id. */
  environment_ids: z.array(z.number().int()),
  /** Every inventory in `-i` order; the first is inventory_id (empty when none). */
  inventory_ids: z.array(z.number().int()),
  view_id: z.number().int().nullable(),
  git_branch: z.string().nullable(),
  runner_tag: z.string().nullable(),
  start_version: z.string().nullable(),
  build_template_id: z.number().int().nullable(),
  autorun: z.boolean(),
  arguments: z.string().nullable(),
  allow_override_args_in_task: z.boolean(),
  allow_override_branch_in_task: z.boolean(),
  allow_extra_vars_in_task: z.boolean(),
  suppress_success_alerts: z.boolean(),
  survey_vars: z.array(surveyVarFieldsSchema),
  vaults: z.array(
    z.object({
      id: z.number().int(),
      name: z.string().nullable(),
      type: z.enum(['password', 'script']),
      vault_key_id: z.number().int().nullable(),
      script: z.string().nullable(),
    }),
  ),
  task_params: templateTaskParamsSchema,
  approval_policy: approvalPolicySchema.nullish(),
  last_task_id: z.number().int().nullable(),
  /** The template's newest task, shaped as a row of the task lists (Semaphore's `last_task`). */
  last_task: taskSchema.nullable(),
  /** Terraform/OpenTofu templates: the latest drift check's finding (a drifted workspace first); absent otherwise. */
  drift: driftSchema.nullable().optional(),
});
export type Template = z.infer<typeof templateSchema>;

export const viewSchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  title: z.string(),
  position: z.number().int(),
});
export type View = z.infer<typeof viewSchema>;
export const viewInputSchema = z.object({ title: requiredName('Title'), position: z.number().int().default(0) });
export const viewPositionsSchema = z.record(z.string(), z.number().int());
