import type { PolicyVerdict } from '@gantry/contracts';
import i18n from 'i18next';
import { codeText } from '../../../lib/error-text';

/** A policy reason in the user's language (errors.<code> filled with its params), else the engine's English words. */
export function reasonText(reason: PolicyVerdict['reasons'][number]): string {
  return codeText({ ...reason.params, code: reason.code }) ?? reason.message;
}

/** A project role's name in the user's language. */
export function roleName(role: string): string {
  return i18n.t(`roles.${role}`, { defaultValue: role });
}

/** A plan value as the table shows it: the placeholders as they are, anything else as JSON. */
export function planValue(v: unknown): string {
  if (v === undefined) return '';
  if (typeof v === 'string' && (v === '(sensitive value)' || v === '(known after apply)')) return v;
  return JSON.stringify(v);
}
