import { hasControlCharacters, parseArgumentList, type SurveyVar, type TaskParams, type TemplateTaskParams } from '@gantry/contracts';
import { ValidationError } from '../../platform/errors.js';

export function parseJsonObject(text: string, what: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text || '{}');
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new ValidationError(`${what} must be a JSON object`);
}

/** Survey answers: required ones present, integers digits only, enums one of their values. */
export function checkSurvey(vars: SurveyVar[], answers: Record<string, unknown>, secrets: Record<string, unknown>): void {
  for (const v of vars) {
    const raw = v.type === 'secret' ? secrets[v.name] : answers[v.name];
    const value = raw === undefined || raw === null ? '' : String(raw);
    if (!value) {
      if (v.required) throw new ValidationError(`${v.title} is required`);
      continue;
    }
    if (v.type === 'int' && !/^-?\d+$/.test(value)) throw new ValidationError(`${v.title} must be integer`);
    if (v.type === 'enum' && !v.values.some((x) => x.value === value)) throw new ValidationError(`${v.title} must be one of its values`);
  }
}

/**
 * What a task may override is what its template allows; anything else is dropped so a re-run of
 * an old task cannot widen what the template permits.
 */
export function allowedParams(p: TaskParams, t: TemplateTaskParams): TaskParams {
  const out: TaskParams = {
    debug: p.debug,
    debug_level: p.debug_level,
    dry_run: p.dry_run,
    diff: p.diff,
    plan: p.plan,
    upgrade: p.upgrade,
    reconfigure: p.reconfigure,
  };
  if (t.allow_destroy) out.destroy = p.destroy;
  if (t.allow_auto_approve) out.auto_approve = p.auto_approve;
  if (t.allow_override_limit) out.limit = cleanList(p.limit, 'Limit');
  if (t.allow_override_tags) out.tags = cleanList(p.tags, 'Tags');
  if (t.allow_override_skip_tags) out.skip_tags = cleanList(p.skip_tags, 'Skip tags');
  return JSON.parse(JSON.stringify(out)) as TaskParams;
}

function cleanList(list: string[] | undefined, what: string): string[] | undefined {
  if (!list) return undefined;
  const out = list.map((x) => x.trim()).filter(Boolean);
  if (out.some((x) => x.startsWith('-') || hasControlCharacters(x))) throw new ValidationError(`${what} may not start with "-"`);
  return out;
}

export function checkArguments(text: string | null | undefined): string | null {
  if (!text) return null;
  if (parseArgumentList(text) === null) throw new ValidationError('Arguments must be a JSON list of strings');
  return text;
}

export function checkBranch(branch: string | null | undefined): string | null {
  if (!branch) return null;
  if (branch.startsWith('-') || hasControlCharacters(branch) || /\s/.test(branch)) throw new ValidationError('Incorrect branch');
  return branch;
}

/** The next build version: the last number of the previous version plus one, else the start version. */
export function nextVersion(previous: string | null | undefined, start: string | null): string {
  if (!previous) return start || '1';
  const m = previous.match(/^(.*?)(\d+)(\D*)$/);
  if (!m) return `${previous}.1`;
  return `${m[1]}${Number(m[2]) + 1}${m[3]}`;
}
