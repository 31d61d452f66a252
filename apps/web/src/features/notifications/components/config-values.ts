import {
  DESTINATION_FIELDS,
  type DestinationField,
  type NotificationDestination,
  type NotificationKind,
} from '@gantry/contracts';

/** A destination form's field values: text for inputs, true/false for switches. */
export type ConfigValues = Record<string, string | boolean>;

/** The form's values for a kind: what the destination has (secrets are never answered, so they start empty). */
export function initialConfig(kind: NotificationKind, item: NotificationDestination | null): ConfigValues {
  const out: ConfigValues = {};
  for (const f of DESTINATION_FIELDS[kind]) {
    const v = f.secret ? undefined : item?.config[f.name];
    if (f.type === 'boolean') out[f.name] = v === true;
    else if (Array.isArray(v)) out[f.name] = v.join(', ');
    else out[f.name] = v === undefined || v === null ? '' : String(v);
  }
  return out;
}

/** Whether a secret field already holds a value on the server (an empty input keeps it). */
export const isStored = (f: DestinationField, item: NotificationDestination | null) =>
  f.secret && item?.secrets[f.name] === true;

/** The list a comma (or space, or line) separated emails text stands for. */
export const splitEmails = (text: string) => text.split(/[\s,;]+/).filter(Boolean);

/**
 * The request's `config`: texts trimmed, numbers as numbers, emails as a list. An empty secret is left
 * out so that the stored one is kept; an empty plain field is sent as null, which clears it.
 */
export function toConfig(
  kind: NotificationKind,
  values: ConfigValues,
): Record<string, string | number | boolean | string[] | null> {
  const out: Record<string, string | number | boolean | string[] | null> = {};
  for (const f of DESTINATION_FIELDS[kind]) {
    const v = values[f.name];
    if (f.type === 'boolean') {
      out[f.name] = v === true;
      continue;
    }
    const text = typeof v === 'string' ? (f.type === 'multiline' ? v : v.trim()) : '';
    if (!text.trim()) {
      if (!f.secret) out[f.name] = null;
    } else if (f.type === 'number') out[f.name] = Number(text);
    else if (f.type === 'emails') out[f.name] = splitEmails(text);
    else out[f.name] = text;
  }
  return out;
}

/** Fields the form asks for before sending: required ones left empty (a stored secret counts as set), and non-numbers. */
export function missingOrInvalid(
  kind: NotificationKind,
  values: ConfigValues,
  item: NotificationDestination | null,
): Record<string, 'required' | 'invalid'> {
  const out: Record<string, 'required' | 'invalid'> = {};
  for (const f of DESTINATION_FIELDS[kind]) {
    const v = values[f.name];
    if (f.type === 'boolean' || typeof v !== 'string') continue;
    if (!v.trim()) {
      if (f.required && !isStored(f, item)) out[f.name] = 'required';
    } else if (f.type === 'number' && !/^\d+$/.test(v.trim())) out[f.name] = 'invalid';
  }
  return out;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random signing secret made in the browser (32 characters, from the platform's secure generator). */
export function randomSecret(length = 32): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
  let out = '';
  // Bytes past the largest multiple of the alphabet's size are skipped, so every character is equally likely.
  for (const b of bytes) {
    if (b < 248 && out.length < length) out += ALPHABET[b % ALPHABET.length];
  }
  return out.length === length ? out : out + randomSecret(length - out.length);
}
