import {
  DESTINATION_FIELDS,
  ErrorCodes,
  NOTIFICATION_LIMITS,
  PAGERDUTY_SEVERITIES,
  type DestinationField,
  type NotificationKind,
} from '@gantry/contracts';
import { ValidationError } from '../../platform/errors.js';
import { checkPayloadTemplate } from './payload-template.js';

/** A destination's configuration split as it is stored: public fields as JSON, secrets to seal. */
export interface CheckedConfig {
  config: Record<string, string | number | boolean | string[]>;
  secrets: Record<string, string>;
}

const EMAIL = /^[^\s@,;<>]+@[^\s@,;<>]+\.[^\s@,;<>]+$/;

/**
 * Checks a destination's configuration against its kind's fields (contracts' DESTINATION_FIELDS)
 * and splits it. `stored` are the secrets kept so far (update of the same kind): a secret field
 * omitted, null or '' keeps its stored value, so the console never has to know it.
 */
export function checkDestinationConfig(
  kind: NotificationKind,
  input: Record<string, unknown>,
  stored: Record<string, string> = {},
): CheckedConfig {
  const out: CheckedConfig = { config: {}, secrets: {} };
  // Unknown fields are dropped: only the kind's own fields are read.
  for (const field of DESTINATION_FIELDS[kind]) {
    const raw = input[field.name];
    const empty = raw === undefined || raw === null || raw === '' || (Array.isArray(raw) && raw.length === 0);
    if (empty) {
      if (field.secret && stored[field.name]) out.secrets[field.name] = stored[field.name]!;
      else if (field.required) throw required(field.name);
      continue;
    }
    const value = checkValue(field, raw);
    if (field.secret) out.secrets[field.name] = String(value);
    else out.config[field.name] = value;
  }
  checkKindRules(kind, out);
  return out;
}

function checkValue(field: DestinationField, raw: unknown): string | number | boolean | string[] {
  switch (field.type) {
    case 'number': {
      const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
      if (typeof n !== 'number' || !Number.isFinite(n)) throw invalid(field.name, 'must be a number');
      return n;
    }
    case 'boolean':
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true' || raw === 'false') return raw === 'true';
      throw invalid(field.name, 'must be true or false');
    case 'emails':
      return checkEmails(field.name, raw);
    case 'url':
      return checkUrl(field.name, text(field.name, raw));
    case 'text':
    case 'multiline':
      return text(field.name, raw, field.name === 'payload_template' ? NOTIFICATION_LIMITS.templateMax : undefined);
  }
}

function text(name: string, raw: unknown, max: number = NOTIFICATION_LIMITS.valueMax): string {
  if (typeof raw !== 'string' && typeof raw !== 'number') throw invalid(name, 'must be text');
  const value = String(raw).trim();
  if (value.length > max) throw invalid(name, `must be at most ${max} characters`);
  return value;
}

/** http(s) only, and no user:password in it (a credential in a URL would be answered as `target`). */
function checkUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(name, 'must be an http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(name, 'must be an http(s) URL');
  if (url.username || url.password) throw invalid(name, 'must not contain a user name or password');
  return value;
}

function checkEmails(name: string, raw: unknown): string[] {
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/[,;\s]+/) : null;
  if (!list) throw invalid(name, 'must be a list of email addresses');
  const emails = list.map((e) => (typeof e === 'string' ? e.trim() : '')).filter(Boolean);
  if (emails.length === 0) throw required(name);
  if (emails.length > NOTIFICATION_LIMITS.emailsMax)
    throw invalid(name, `must list at most ${NOTIFICATION_LIMITS.emailsMax} addresses`);
  for (const e of emails) {
    if (e.length > 254 || !EMAIL.test(e)) throw invalid(name, `has an address that is not valid: ${e.slice(0, 80)}`);
  }
  return emails;
}

function checkKindRules(kind: NotificationKind, c: CheckedConfig): void {
  if (kind === 'webhook') {
    const secret = c.secrets.secret ?? '';
    if (secret.length < NOTIFICATION_LIMITS.secretMin)
      throw invalid('secret', `must be at least ${NOTIFICATION_LIMITS.secretMin} characters`);
    const template = c.config.payload_template;
    if (typeof template === 'string') {
      const tag = checkPayloadTemplate(template);
      if (tag !== null)
        throw new ValidationError(`The payload template uses a tag it does not have: ${tag}`, {
          code: ErrorCodes.notificationTemplateInvalid,
          field: 'config.payload_template',
          tag,
        });
    }
  }
  if (kind === 'pagerduty' && c.config.severity !== undefined) {
    if (!(PAGERDUTY_SEVERITIES as readonly unknown[]).includes(c.config.severity))
      throw invalid('severity', 'must be one of: ' + PAGERDUTY_SEVERITIES.join(', '));
  }
}

function required(name: string): ValidationError {
  return new ValidationError(`${name} is required`, {
    code: ErrorCodes.notificationFieldRequired,
    field: `config.${name}`,
    name,
  });
}

function invalid(name: string, why: string): ValidationError {
  return new ValidationError(`${name} ${why}`, {
    code: ErrorCodes.notificationFieldInvalid,
    field: `config.${name}`,
    name,
  });
}

/** Where a destination sends, without any key: what the API answers instead of keyed URLs. */
export function destinationTarget(
  kind: NotificationKind,
  config: Record<string, unknown>,
  secrets: Record<string, string>,
): string {
  const url = (v: unknown): URL | null => {
    try {
      return typeof v === 'string' ? new URL(v) : null;
    } catch {
      return null;
    }
  };
  const host = (v: unknown) => url(v)?.host ?? '';
  const pathOf = (v: unknown) => {
    const u = url(v);
    return u ? `${u.protocol}//${u.host}${u.pathname}` : '';
  };
  switch (kind) {
    case 'slack':
    case 'teams':
    case 'discord':
    case 'mattermost':
      // Their URLs carry the key in the path: only the host is told.
      return host(secrets.url);
    case 'webhook':
      return pathOf(secrets.url);
    case 'gotify':
      return pathOf(config.url);
    case 'ntfy':
      return `${pathOf(config.url ?? 'https://ntfy.sh').replace(/\/$/, '')}/${String(config.topic ?? '')}`;
    case 'telegram':
      return `chat ${String(config.chat_id ?? '')}`;
    case 'email':
      return Array.isArray(config.to) ? config.to.join(', ') : String(config.to ?? '');
    case 'pagerduty':
      return config.api_url ? `PagerDuty (${host(config.api_url)})` : 'PagerDuty';
  }
}
