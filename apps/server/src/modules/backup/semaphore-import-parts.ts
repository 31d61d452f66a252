import {
  extractValueInputSchema,
  isValidBranch,
  matcherInputSchema,
  surveyVarSchema,
  taskParamsSchema,
  taskVariableProblem,
  templateTaskParamsSchema,
  type ProjectBackupInput,
  type SurveyVar,
} from '@gantry/contracts';
import type { SemaphoreBackup } from './semaphore-format.js';
import { fromSemaphoreSurveyVar } from './semaphore-survey.js';

/** The pieces of a Semaphore import: one template, one integration, and the rules they share. */

export type Doc = Required<Omit<ProjectBackupInput, 'meta'>>;
type SemTemplate = SemaphoreBackup['templates'][number];
type SemIntegration = SemaphoreBackup['integrations'][number];

/** Names of one kind mapped to backup ids; the first of two equal names wins, as in Semaphore. */
export class Names {
  private readonly ids = new Map<string, number>();
  private next = 1;
  constructor(
    private readonly kind: string,
    private readonly notes: string[],
  ) {}

  add(name: string): number {
    const id = this.next++;
    if (this.ids.has(name)) this.notes.push(`${this.kind} "${name}" is listed twice; references use the first`);
    else this.ids.set(name, id);
    return id;
  }

  find(name: string | null): number | null {
    return name === null ? null : (this.ids.get(name) ?? null);
  }
}

const TEMPLATE_ARRAY_PARAMS = ['limit', 'tags', 'skip_tags', 'branch_choices'] as const;
/** Run-time choices of variable groups and inventories: by name in this format (Gantry's export writes them). */
const TEMPLATE_NAMED_CHOICES = { environment_choices: 'variable group', inventory_choices: 'inventory' } as const;
const TEMPLATE_FLAG_PARAMS = [
  'allow_debug',
  'allow_override_limit',
  'allow_override_tags',
  'allow_override_skip_tags',
  'allow_override_inventory',
  'allow_override_environment',
  'auto_approve',
  'allow_auto_approve',
  'allow_destroy',
] as const;
/** Template fields Semaphore has and Gantry does not: reported when set. */
const UNSUPPORTED_TEMPLATE_FLAGS = ['allow_parallel_tasks', 'suppress_error_alerts'] as const;

export interface TemplateContext {
  keys: Names;
  repos: Names;
  invs: Names;
  envs: Names;
  views: Names;
  keyRef(what: string, field: string, name: string | null): number | null;
  emptyEnv(what: string, message: string): number;
  note(what: string, message: string): void;
}

/** One template, or null (reported) when it cannot exist without what it names. */
export function templateFrom(t: SemTemplate, id: number, c: TemplateContext): Doc['templates'][number] | null {
  const what = `Template "${t.name}"`;
  const app = t.app || 'ansible';
  const repositoryId = c.repos.find(t.repository);
  if (repositoryId === null) {
    c.note(what, `repository "${t.repository}" is not restored; left out`);
    return null;
  }
  const inventoryId = c.invs.find(t.inventory);
  if (t.inventory !== null && inventoryId === null) {
    if (app === 'ansible') {
      c.note(what, `inventory "${t.inventory}" is not restored, and an Ansible template needs one; left out`);
      return null;
    }
    c.note(what, `inventory "${t.inventory}" is not restored; left out`);
  }
  // Newer versions list several variable groups (merged in order), as Gantry does.
  const envNames = t.environments.length ? t.environments : t.environment !== null ? [t.environment] : [];
  const envName = envNames[0] ?? null;
  const environmentId =
    c.envs.find(envName) ??
    c.emptyEnv(what, envName === null ? 'no variable group' : `variable group "${envName}" is not in the backup`);
  const moreEnvs = envNames.slice(1).flatMap((n) => {
    const found = c.envs.find(n);
    if (found === null) c.note(what, `variable group "${n}" is not in the backup; left out`);
    return found === null ? [] : [found];
  });
  const moreInvs = t.inventories.slice(1).flatMap((n) => {
    const found = c.invs.find(n);
    if (found === null) c.note(what, `inventory "${n}" is not restored; left out`);
    return found === null ? [] : [found];
  });
  const viewId = c.views.find(t.view);
  if (t.view !== null && viewId === null) c.note(what, `view "${t.view}" is not in the backup; left out`);
  let gitBranch = t.git_branch || null;
  if (gitBranch && !isValidBranch(gitBranch)) {
    c.note(what, `branch "${gitBranch}" is not a valid branch name; uses the repository's branch`);
    gitBranch = null;
  }
  for (const flag of UNSUPPORTED_TEMPLATE_FLAGS) if (t[flag]) c.note(what, `${flag} is not supported; ignored`);
  if (t.working_directory && t.working_directory !== '.') c.note(what, 'working_directory is not supported; ignored');

  const vaults = t.vaults.map((v) => ({
    name: v.name,
    type: v.type === 'script' ? ('script' as const) : ('password' as const),
    vault_key_id: c.keyRef(what, 'vault key', v.vault_key),
    script: v.script,
  }));
  if (!vaults.length && t.vault_key !== null) {
    vaults.push({ name: null, type: 'password', vault_key_id: c.keyRef(what, 'vault key', t.vault_key), script: null });
  }
  const usableVaults = vaults.filter((v) => v.type === 'script' || v.vault_key_id !== null);
  if (usableVaults.length < vaults.length) c.note(what, 'a password vault without its key is left out');

  return {
    id,
    name: t.name,
    description: t.description ?? '',
    type: (t.type || '') as Doc['templates'][number]['type'],
    app,
    playbook: t.playbook,
    inventory_id: inventoryId,
    inventory_ids: inventoryId !== null && moreInvs.length ? [inventoryId, ...moreInvs] : [],
    environment_ids: moreEnvs.length ? [environmentId, ...moreEnvs] : [],
    repository_id: repositoryId,
    environment_id: environmentId,
    view_id: viewId,
    git_branch: gitBranch,
    runner_tag: t.runner_tag || null,
    start_version: t.start_version,
    build_template_id: null,
    autorun: t.autorun,
    arguments: t.arguments,
    allow_override_args_in_task: t.allow_override_args_in_task,
    allow_override_branch_in_task: t.allow_override_branch_in_task,
    allow_extra_vars_in_task: t.allow_extra_vars_in_task ?? false,
    suppress_success_alerts: t.suppress_success_alerts,
    survey_vars: surveyVars(t.survey_vars, (m) => c.note(what, m)),
    vaults: usableVaults,
    task_params: templateParams(t.task_params, c, (m) => c.note(what, m)),
  };
}

/** Survey variables that Gantry's rules take; each other one is reported and left out. */
function surveyVars(raw: SemTemplate['survey_vars'], report: (m: string) => void): SurveyVar[] {
  let items: unknown[] = [];
  if (typeof raw === 'string') {
    try {
      const parsed: unknown = raw.trim() ? JSON.parse(raw) : [];
      items = Array.isArray(parsed) ? parsed : [];
      if (!Array.isArray(parsed)) report('survey variables are not a list; left out');
    } catch {
      report('survey variables are not valid JSON; left out');
    }
  } else items = raw ?? [];
  return items.flatMap((raw) => {
    const item = fromSemaphoreSurveyVar(raw, report);
    const label = item && typeof item === 'object' ? String((item as { name?: unknown }).name ?? '') : '';
    const parsed = surveyVarSchema.safeParse(item);
    if (!parsed.success) {
      report(`survey variable "${label}" left out: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      return [];
    }
    const problem = taskVariableProblem(parsed.data.name);
    if (problem) report(`survey variable left out: ${problem}`);
    return problem ? [] : [parsed.data];
  });
}

/** Semaphore's free-form template parameters, narrowed to the ones Gantry's templates have. */
function templateParams(raw: Record<string, unknown>, c: Pick<TemplateContext, 'envs' | 'invs'>, report: (m: string) => void) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (k in TEMPLATE_NAMED_CHOICES) {
      const kind = TEMPLATE_NAMED_CHOICES[k as keyof typeof TEMPLATE_NAMED_CHOICES];
      const names = Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
      out[k] = names.flatMap((n) => {
        const found = (kind === 'inventory' ? c.invs : c.envs).find(n);
        if (found === null) report(`run-time choice of ${kind} "${n}" is not restored; left out`);
        return found === null ? [] : [found];
      });
    } else if ((TEMPLATE_ARRAY_PARAMS as readonly string[]).includes(k)) {
      out[k] =
        typeof v === 'string'
          ? v
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean)
          : (v ?? []);
    } else if ((TEMPLATE_FLAG_PARAMS as readonly string[]).includes(k)) out[k] = v ?? false;
    else if (v !== null && v !== undefined && v !== false && v !== '')
      report(`task parameter ${k} is not supported; ignored`);
  }
  const parsed = templateTaskParamsSchema.safeParse(out);
  if (parsed.success) return parsed.data;
  report(`task parameters left out: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return templateTaskParamsSchema.parse(undefined);
}

/**
 * JSON object text without the keys `problem` refuses (each reported). Text that is not a JSON
 * object is passed on unchanged: Gantry's own check then answers for it.
 */
export function withoutBadNames(
  text: string,
  problem: (name: string) => string | null,
  report: (m: string) => void,
): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text || '{}');
  } catch {
    return text;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return text;
  const entries = Object.entries(parsed as Record<string, unknown>);
  const kept = entries.filter(([name]) => {
    const p = problem(name);
    if (p) report(`variable left out: ${p}`);
    return !p;
  });
  return kept.length === entries.length ? text : JSON.stringify(Object.fromEntries(kept));
}

export interface IntegrationContext {
  keys: Names;
  template(what: string, name: string): number | null;
  note(what: string, message: string): void;
}

export function integrationFrom(ig: SemIntegration, c: IntegrationContext): Doc['integrations'][number] | null {
  const what = `Integration "${ig.name}"`;
  const templateId = c.template(what, ig.template);
  if (templateId === null) return null;
  const authMethod = ig.auth_method || 'none';
  const secretId = c.keys.find(ig.auth_secret);
  if (ig.auth_secret !== null && secretId === null) {
    if (authMethod !== 'none') {
      c.note(what, `secret "${ig.auth_secret}" is not in the backup, and ${authMethod} needs one; left out`);
      return null;
    }
    c.note(what, `secret "${ig.auth_secret}" is not in the backup; left out`);
  }
  const report = (m: string) => c.note(what, m);
  const matchers = ig.matchers.flatMap((m) => {
    const item = { ...m, body_data_type: m.body_data_type || null };
    const parsed = matcherInputSchema.safeParse(item);
    if (!parsed.success) report(`matcher "${m.name}" left out: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return parsed.success
      ? [
          {
            ...item,
            match_type: parsed.data.match_type,
            method: parsed.data.method,
            body_data_type: parsed.data.body_data_type ?? null,
          },
        ]
      : [];
  });
  const values = ig.extract_values.flatMap((v) => {
    const item = { ...v, body_data_type: v.body_data_type || null, variable_type: v.variable_type || 'environment' };
    const parsed = extractValueInputSchema.safeParse(item);
    if (!parsed.success) report(`value "${v.name}" left out: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return parsed.success
      ? [
          {
            name: parsed.data.name,
            value_source: parsed.data.value_source,
            body_data_type: parsed.data.body_data_type ?? null,
            key: parsed.data.key,
            variable_type: parsed.data.variable_type,
            variable: parsed.data.variable,
          },
        ]
      : [];
  });
  if (ig.aliases.length)
    report(`${ig.aliases.length} alias URL(s) not restored: add new ones to the restored integration`);
  return {
    name: ig.name,
    template_id: templateId,
    auth_method: authMethod as Doc['integrations'][number]['auth_method'],
    auth_header: ig.auth_header || null,
    auth_secret_id: secretId,
    searchable: ig.searchable,
    task_params: integrationParams(ig.task_params, report),
    matchers,
    extract_values: values,
  };
}

/** An integration's task parameters: its message, extra variables and run options. */
function integrationParams(raw: Record<string, unknown>, report: (m: string) => void) {
  const out: { message?: string; environment?: string; params?: Record<string, unknown> } = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === null || v === undefined || v === '') continue;
    if (k === 'message' && typeof v === 'string') out.message = v;
    else if (k === 'environment' && (typeof v === 'string' || typeof v === 'object')) {
      out.environment = withoutBadNames(typeof v === 'string' ? v : JSON.stringify(v), taskVariableProblem, report);
    } else if (k === 'params' && typeof v === 'object') {
      const parsed = taskParamsSchema.safeParse(v);
      if (parsed.success) out.params = parsed.data;
      else report(`run options left out: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    } else report(`task parameter ${k} is not supported; ignored`);
  }
  return out;
}
