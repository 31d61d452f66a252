/** The JSON types a table row can hold; objects and arrays make the table unavailable. */
export const VAR_TYPES = ['string', 'number', 'boolean', 'null'] as const;
export type VarType = (typeof VAR_TYPES)[number];

/**
 * One variable in table mode. `value` is what the user edits; `type` is the JSON type it is
 * saved as, kept from the JSON it came from so a number stays a number and a string "8080" stays
 * a string through every switch between table and JSON.
 */
export interface VarRow {
  name: string;
  value: string;
  type: VarType;
}

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** Whether the row's text is a value of its type (numbers in JSON number syntax). */
export function rowValid(r: VarRow): boolean {
  if (r.type === 'number') return NUMBER.test(r.value.trim());
  if (r.type === 'boolean') return r.value === 'true' || r.value === 'false';
  return true;
}

function typeOf(v: unknown): VarType {
  if (v === null) return 'null';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'boolean';
  return 'string';
}

/** Rows of a flat JSON object (the caller has checked no value is an object). */
export function toRows(obj: Record<string, unknown>): VarRow[] {
  return Object.entries(obj).map(([name, value]) => {
    const type = typeOf(value);
    return { name, type, value: type === 'string' ? String(value) : type === 'null' ? '' : JSON.stringify(value) };
  });
}

/**
 * The value as it appears in JSON. Text that is not a number yet is written as something that is
 * never JSON, so the group cannot be saved until it is fixed; it is never shown, as the switch to
 * JSON waits for every row to be valid.
 */
function literal(r: VarRow): string {
  if (!rowValid(r)) return `<${JSON.stringify(r.value)}>`;
  switch (r.type) {
    case 'string':
      return JSON.stringify(r.value);
    case 'number':
      return r.value.trim();
    case 'boolean':
      return r.value;
    case 'null':
      return 'null';
  }
}

/** The JSON text of the rows (indent 2, as JSON.stringify writes it); unnamed rows are left out, a later name wins. */
export function toText(rows: VarRow[]): string {
  const entries = new Map<string, string>();
  for (const r of rows) if (r.name.trim()) entries.set(r.name.trim(), literal(r));
  if (!entries.size) return '{}';
  return `{\n${[...entries].map(([k, v]) => `  ${JSON.stringify(k)}: ${v}`).join(',\n')}\n}`;
}

/** A row moved to another type: the text is kept where it still fits, otherwise reset. */
export function retype(r: VarRow, type: VarType): VarRow {
  if (type === 'boolean') return { ...r, type, value: r.value === 'true' ? 'true' : 'false' };
  if (type === 'null') return { ...r, type, value: '' };
  return { ...r, type };
}
