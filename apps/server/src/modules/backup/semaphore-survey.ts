import { SURVEY_VAR_TYPES, type SurveyVar, type SurveyVarType } from '@gantry/contracts';

/**
 * Survey variables between Semaphore's format and Gantry's. Semaphore knows `""`, `int`, `enum`,
 * `secret`, `text` and `select` (several values, its default a JSON list); Gantry's `multi_enum` is
 * Semaphore's `select`, and Gantry's other types (`number`, `boolean`, `date`) go out as the
 * nearest Semaphore type with the exact one under `gantry_type`, which Semaphore ignores and a
 * Gantry restore reads back.
 */
const TO_SEMAPHORE: Record<SurveyVarType, string> = {
  '': '',
  int: 'int',
  secret: 'secret',
  enum: 'enum',
  text: 'text',
  multi_enum: 'select',
  number: '',
  boolean: 'enum',
  date: '',
};

const isGantryType = (v: unknown): v is SurveyVarType =>
  typeof v === 'string' && (SURVEY_VAR_TYPES as readonly string[]).includes(v);

/** A Gantry survey variable as Semaphore's export writes one. */
export function toSemaphoreSurveyVar(v: SurveyVar): Record<string, unknown> {
  const type = TO_SEMAPHORE[v.type];
  const out: Record<string, unknown> = { ...v, type };
  if (type !== v.type) out.gantry_type = v.type;
  // Semaphore's enum needs its values: a boolean goes out as a choice of true and false.
  if (v.type === 'boolean') out.values = [{ name: 'true', value: 'true' }, { name: 'false', value: 'false' }];
  if (v.type === 'multi_enum') out.default_value = listDefault(v.default_value);
  return out;
}

function listDefault(text: string): string[] {
  if (!text.trim()) return [];
  try {
    const v: unknown = JSON.parse(text);
    if (Array.isArray(v)) return v.map(String);
  } catch {
    // a single value, as Semaphore's older clients wrote it
  }
  return [text];
}

/**
 * A survey variable from a Semaphore backup, in Gantry's shape before validation: `select` is
 * `multi_enum` (its list default as JSON text), `gantry_type` (written by Gantry's own export)
 * wins, a null default is none. What Gantry does not keep is reported.
 */
export function fromSemaphoreSurveyVar(item: unknown, report: (m: string) => void): unknown {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return item;
  const { gantry_type: gantryType, target, ...rest } = item as Record<string, unknown>;
  const v: Record<string, unknown> = { ...rest };
  const name = typeof v.name === 'string' ? v.name : '';
  if (isGantryType(gantryType)) {
    v.type = gantryType;
    // The values a boolean went out with are Semaphore's need, not the variable's.
    if (gantryType === 'boolean') v.values = [];
  } else if (v.type === 'select') v.type = 'multi_enum';
  if (v.default_value === null || v.default_value === undefined) v.default_value = '';
  else if (Array.isArray(v.default_value)) {
    const list = v.default_value.map(String);
    v.default_value = v.type === 'multi_enum' ? JSON.stringify(list) : (list[0] ?? '');
  }
  if (target === 'env') report(`survey variable "${name}": Semaphore passes it as an environment variable; Gantry passes it as a variable`);
  return v;
}
