import {
  CHOICE_SURVEY_TYPES,
  cascadeOptions,
  ErrorCodes,
  labelKey,
  templateTaskParamsSchema,
  type SurveyFieldIssue,
  type SurveyOption,
  type SurveyOptions,
  type SurveyVar,
  type Template,
} from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { AppError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { SafeFetchError, type SafeFetchOptions, type SafeFetchResult } from '../../platform/safe-fetch.js';
import type { DynamicOptionCheck } from '../tasks/survey-answers.js';
import { OptionsCache, OptionsSourceError } from './options-cache.js';
import { inventoryOptions, optionsFromJson } from './option-sources.js';

/** A URL source's answer: small, and quick or not at all (the run dialog waits for it). */
export const URL_OPTIONS_MAX_BYTES = 1024 * 1024;
export const URL_OPTIONS_TIMEOUT_MS = 5000;

export interface SurveyOptionsDeps {
  /** The template as the API presents it (survey variables and task parameters parsed). */
  template(projectId: number, templateId: number): Promise<Template>;
  /** Whether the inventory belongs to the project. */
  inventoryExists(projectId: number, inventoryId: number): Promise<boolean>;
  /**
   * `ansible-inventory --list` of one inventory, in the sandbox (inventories/inventory-listing.ts);
   * a file of "the template's repository" is read from this template's.
   */
  listInventory(
    projectId: number,
    inventoryId: number,
    templateId: number,
  ): Promise<{ hosts: Array<{ name: string }>; groups: string[] }>;
  /** safe-fetch with the admin's allow list bound in. */
  fetch(url: string, opts: Omit<SafeFetchOptions, 'allowedHosts'>): Promise<SafeFetchResult>;
  clock: Clock;
}

type Choice = SurveyVar & { options_source: NonNullable<SurveyVar['options_source']> };

const isChoiceWithSource = (v: SurveyVar): v is Choice => CHOICE_SURVEY_TYPES.includes(v.type) && !!v.options_source;

/**
 * The options of choice parameters whose options come from a source (issue 25 item 2): what the
 * run dialog offers (GET .../survey/{name}/options) and what a task's answer is checked against
 * when it starts (`checker`, wired into TasksService).
 */
export class SurveyOptionsService {
  /** How long a URL's or an inventory's options are reused (tests set 0 to read every time). */
  cacheMs = 60_000;
  private readonly cache: OptionsCache;

  constructor(private readonly d: SurveyOptionsDeps) {
    this.cache = new OptionsCache(() => d.clock.now());
  }

  /**
   * The options of parameter `name` of a template now. `answersText`: the answers given so far (a
   * JSON object, for a cascade); `inventoryId`: the inventory chosen at run time, which must be one
   * the template lets a task choose. 404 for no such parameter, 400 for one without a source.
   */
  async options(
    projectId: number,
    templateId: number,
    name: string,
    answersText?: string,
    inventoryId?: number,
  ): Promise<SurveyOptions> {
    const template = await this.d.template(projectId, templateId);
    const variable = template.survey_vars.find((v) => v.name === name);
    if (!variable)
      throw new NotFoundError(`The template has no parameter ${name}`, {
        code: ErrorCodes.surveyVariableNotFound,
        variable: name,
      });
    if (!isChoiceWithSource(variable))
      throw new ValidationError(`Parameter ${name} is not a choice whose options come from a source`, {
        code: ErrorCodes.surveyOptionsNoSource,
        variable: name,
      });
    const answers = parseAnswers(answersText);
    if (inventoryId !== undefined && !(await this.inventoryAllowed(projectId, template, inventoryId)))
      throw new ValidationError('A task of this template cannot choose that inventory', {
        code: ErrorCodes.surveyOptionsInventory,
        field: 'inventory_id',
      });
    return this.resolve(projectId, template, variable, answers, inventoryId ?? null);
  }

  /**
   * The answer check for one task start (TasksService's `checkDynamicOption`): an answer must be
   * among the parameter's current options; when its source cannot be read now, among the last good
   * ones. `inventoryId`: the inventory the task asked for (the template's when it may not choose).
   */
  checker(projectId: number, template: Template, inventoryId: number | null | undefined): DynamicOptionCheck {
    let chosen: Promise<number | null> | undefined;
    return async (variable, answer, answers) => {
      if (!isChoiceWithSource(variable)) return null;
      chosen ??= inventoryId
        ? this.inventoryAllowed(projectId, template, inventoryId).then((ok) => (ok ? inventoryId : null))
        : Promise.resolve(null);
      const current = await this.resolve(projectId, template, variable, answers, await chosen);
      const values = (Array.isArray(answer) ? answer : [answer]).map(String);
      const known = new Set(current.options.map((o) => o.value));
      if (values.every((v) => known.has(v))) return null;
      const title = variable.title || variable.name;
      const field = `environment.${variable.name}`;
      if (current.error)
        return {
          name: variable.name,
          field,
          code: ErrorCodes.surveyOptionsUnavailable,
          message: `${title}: its options could not be read (${current.error}) and the answer is not among the last ones read`,
          params: { title },
        } satisfies SurveyFieldIssue;
      return {
        name: variable.name,
        field,
        code: ErrorCodes.surveyValueOption,
        message: `${title} must be one of its current options`,
        params: { title },
      } satisfies SurveyFieldIssue;
    };
  }

  private async resolve(
    projectId: number,
    template: Template,
    variable: Choice,
    answers: Record<string, unknown>,
    inventoryId: number | null,
  ): Promise<SurveyOptions> {
    const source = variable.options_source;
    switch (source.kind) {
      case 'parameter':
        return { options: cascadeOptions(source, answers), error: null, code: null, fetched_at: null };
      case 'url':
        return this.cache.get(`url|${projectId}|${template.id}|${variable.name}|${source.url}`, this.cacheMs, () =>
          this.readUrl(source.url),
        );
      case 'inventory_hosts':
      case 'inventory_groups': {
        const id = inventoryId ?? template.inventory_ids[0] ?? template.inventory_id ?? null;
        if (!id)
          return {
            options: [],
            error: 'The template has no inventory to take hosts or groups from',
            code: ErrorCodes.surveyOptionsNoInventory,
            fetched_at: null,
          };
        // Per template too: a file of "the template's repository" is read from each template's own.
        return this.cache.get(`${source.kind}|${projectId}|${id}|${template.id}`, this.cacheMs, () =>
          this.readInventory(projectId, id, template.id, source.kind),
        );
      }
    }
  }

  private async readUrl(url: string): Promise<SurveyOption[]> {
    let body: string;
    try {
      body = (await this.d.fetch(url, { timeoutMs: URL_OPTIONS_TIMEOUT_MS, maxBytes: URL_OPTIONS_MAX_BYTES })).body;
    } catch (e) {
      if (e instanceof SafeFetchError) throw new OptionsSourceError(e.message, e.code);
      throw e;
    }
    const options = optionsFromJson(body);
    if (!options)
      throw new OptionsSourceError(
        'The URL did not answer a JSON list of strings or {name, value} objects',
        ErrorCodes.surveyOptionsInvalid,
      );
    return options;
  }

  private async readInventory(
    projectId: number,
    inventoryId: number,
    templateId: number,
    kind: 'inventory_hosts' | 'inventory_groups',
  ): Promise<SurveyOption[]> {
    try {
      return inventoryOptions(await this.d.listInventory(projectId, inventoryId, templateId), kind);
    } catch (e) {
      // A refusal keeps its code (an inventory without hosts, one gone); a failed run says why.
      if (e instanceof AppError) throw new OptionsSourceError(e.message, e.details.code);
      throw new OptionsSourceError(
        `The inventory could not be listed: ${(e as Error).message}`,
        ErrorCodes.surveyOptionsInventoryFailed,
      );
    }
  }

  /** Whether a task of the template may run with this inventory (allow_override_inventory, inventory_choices). */
  private async inventoryAllowed(projectId: number, template: Template, inventoryId: number): Promise<boolean> {
    const tp = templateTaskParamsSchema.parse(template.task_params);
    const listed = tp.inventory_choices.length === 0 || tp.inventory_choices.includes(inventoryId);
    const own = inventoryId === (template.inventory_ids[0] ?? template.inventory_id);
    if (!own && !(tp.allow_override_inventory && listed)) return false;
    return this.d.inventoryExists(projectId, inventoryId);
  }
}

function parseAnswers(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const v: unknown = JSON.parse(text);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // refused below
  }
  // The answers so far are the task's `environment` to be: worded as that field is.
  throw new ValidationError('Environment must be a JSON object', {
    code: ErrorCodes.jsonObjectRequired,
    label_key: labelKey('Environment'),
    field: 'answers',
  });
}
