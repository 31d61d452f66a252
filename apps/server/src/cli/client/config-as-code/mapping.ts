import { CliError } from '../cli-error.js';
import { isRow, type Row } from './config-file.js';
import type { KindSpec } from './spec.js';

/** Names to ids per section; a dry run gives objects still to be created the id -1. */
export type IdMaps = Map<string, Map<string, number>>;

/** The API body an entry of the file asks for (secrets left out: see secrets.ts), refs resolved. */
export function desiredBody(kind: KindSpec, item: Row, ids: IdMaps, where: string): Row {
  const body: Row = {};
  for (const [field, value] of Object.entries(item)) {
    if (kind.fields[field] !== undefined) body[kind.fields[field]!] = value;
    else if (kind.refs[field] !== undefined) {
      const [idField, section] = kind.refs[field]!;
      body[idField] = resolveRef(ids, section, value, `${where}.${field}`);
    } else if (kind.listRefs?.[field] !== undefined) {
      const [idField, section] = kind.listRefs[field]!;
      if (!Array.isArray(value)) throw new CliError(`${where}.${field} must be a list of names`);
      body[idField] = value.map((v, i) => {
        if (typeof v !== 'string' || !v) throw new CliError(`${where}.${field}[${i}]: give the name`);
        return resolveRef(ids, section, v, `${where}.${field}[${i}]`);
      });
    } else if (!extraField(kind.section, field)) throw new CliError(`${where}: unknown field "${field}"`);
  }
  if (kind.section === 'keys') {
    for (const t of ['ssh', 'login_password'] as const)
      if (isRow(item[t])) body[t] = { login: typeof item[t].login === 'string' ? item[t].login : '' };
  }
  if (kind.section === 'variable_groups') {
    for (const f of ['json', 'env'] as const) {
      if (item[f] === undefined) continue;
      if (!isRow(item[f])) throw new CliError(`${where}.${f} must be a mapping`);
      body[f] = JSON.stringify(item[f]);
    }
  }
  return body;
}

function extraField(section: string, field: string): boolean {
  if (section === 'keys') return field === 'ssh' || field === 'login_password';
  if (section === 'variable_groups') return field === 'json' || field === 'env' || field === 'secrets';
  return false;
}

function resolveRef(ids: IdMaps, section: string, value: unknown, where: string): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string') throw new CliError(`${where}: give the name`);
  const id = ids.get(section)?.get(value);
  if (id === undefined) throw new CliError(`${where}: no ${section} entry "${value}" in the file or the project`);
  return id;
}

/** `field old -> new` for each field of `body` the stored object holds otherwise. */
export function differences(section: string, body: Row, current: Row): string[] {
  const out: string[] = [];
  for (const [field, want] of Object.entries(body)) {
    let have = current[field];
    let wanted = want;
    let label = field;
    if (section === 'keys' && (field === 'ssh' || field === 'login_password')) {
      // Only the login can be read back, and only that of the key's own type.
      if (field !== (body.type ?? current.type)) continue;
      have = isRow(have) ? have.login : '';
      wanted = (want as Row).login;
      label = `${field}.login`;
    }
    if (section === 'variable_groups' && (field === 'json' || field === 'env')) {
      have = parseJson(have);
      wanted = parseJson(want);
    }
    if (!sameValue(field, wanted, have)) out.push(`${label} ${show(have)} -> ${show(wanted)}`);
  }
  return out;
}

function parseJson(v: unknown): unknown {
  try {
    return typeof v === 'string' ? JSON.parse(v || '{}') : v;
  } catch {
    return v;
  }
}

/** Empty, null and missing are one (an id of 0 is none too); objects compare by content. */
export function sameValue(field: string, a: unknown, b: unknown): boolean {
  // An integration's auth_method none reads back as "" (Semaphore's value).
  const norm = (v: unknown) =>
    v === undefined || v === '' || (field.endsWith('_id') && v === 0) || (field === 'auth_method' && v === 'none')
      ? null
      : v;
  return stable(norm(a)) === stable(norm(b));
}

function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (isRow(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v ?? null);
}

function show(v: unknown): string {
  const text = JSON.stringify(v ?? null);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
