import { keyCreateSchema } from '@gantry/contracts';
import i18n from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import de from '../locales/de.json';
import en from '../locales/en.json';
import { ApiError } from './api-client';
import { contractResolver } from './contract-resolver';
import { errorText } from './error-text';

beforeAll(async () => {
  await i18n.init({
    resources: { en: { translation: en }, de: { translation: de } },
    lng: 'en',
    fallbackLng: 'en',
    interpolation: { escapeValue: false },
  });
});

const refused = (body: Record<string, unknown>) => new ApiError(400, 'Bad Request', body as { error: string });

describe('refusals with a stable code', () => {
  it("are worded by the console's dictionary, in the user's language, with the refusal's fields", async () => {
    const reserved = refused({
      error: 'Variable HTTPS_PROXY is reserved',
      code: 'variable_reserved',
      field: 'environment',
      variable: 'HTTPS_PROXY',
    });
    const big = refused({
      error: 'Private key must be at most 64 KiB',
      code: 'too_large',
      field: 'ssh.private_key',
      limit: '64 KiB',
    });
    expect(errorText(reserved)).toBe('Variable HTTPS_PROXY is reserved');
    expect(errorText(big)).toBe('Too large: the limit is 64 KiB');
    await i18n.changeLanguage('de');
    expect(errorText(reserved)).toBe('Die Variable HTTPS_PROXY ist reserviert');
    expect(errorText(big)).toBe('Zu groß: Die Grenze liegt bei 64 KiB');
    await i18n.changeLanguage('en');
    // A code the console has no words for keeps the server's text; so does a refusal without a code.
    expect(errorText(refused({ error: 'Something new', code: 'brand_new_code' }))).toBe('Something new');
    expect(errorText(refused({ error: 'Name is required' }))).toBe('Name is required');
  });

  it('word the same rule in forms, under the field', async () => {
    const resolve = contractResolver<{ name: string; type: string }>(keyCreateSchema);
    const r = await resolve({ name: 'invoice\u202Efdp.sh', type: 'none' }, undefined, {
      fields: {},
      shouldUseNativeValidation: false,
    });
    expect(r.errors.name?.message).toBe(
      'Must not contain invisible or bidirectional control characters (such as U+202E or U+200B)',
    );
    const plain = await resolve({ name: ' ', type: 'none' }, undefined, {
      fields: {},
      shouldUseNativeValidation: false,
    });
    expect(plain.errors.name?.message).toBe('Name is required');
  });

  it("word a form's checks in the user's language, the field's label included", async () => {
    const resolve = contractResolver<{ name: string; type: string }>(keyCreateSchema);
    await i18n.changeLanguage('de');
    const empty = await resolve({ name: ' ', type: 'none' }, undefined, { fields: {}, shouldUseNativeValidation: false });
    await i18n.changeLanguage('en');
    // "$t(fieldLabels.name) ist erforderlich", the label from the German dictionary.
    expect(empty.errors.name?.message).toBe(de.errors.field_required.replace('$t(fieldLabels.{{label_key}})', de.fieldLabels.name));
  });
});

describe('failures that are not refusals', () => {
  it('say what happened and what to do, in the language, never "Failed to fetch" or a bare 500', async () => {
    await i18n.changeLanguage('de');
    // Chrome, Firefox and Safari word a request without an answer each their own way.
    for (const message of ['Failed to fetch', 'NetworkError when attempting to fetch resource.', 'Load failed']) {
      expect(errorText(new TypeError(message))).toBe(de.app.unreachable);
    }
    expect(errorText(new ApiError(502, 'Bad Gateway', null))).toBe(de.app.unreachable);
    const failed = errorText(new ApiError(500, 'Internal Server Error', { error: 'Internal server error' }));
    expect(failed).toBe(de.app.serverProblem.replace('{{status}}', '500'));
    expect(failed).toContain('Log des Servers');
    // The same once the server's 500 carries its code.
    expect(errorText(new ApiError(500, 'Internal Server Error', { error: 'Internal server error', code: 'internal_error' }))).toBe(failed);
    await i18n.changeLanguage('en');
    expect(errorText(new TypeError('Failed to fetch'))).toBe('Cannot reach the Gantry server. Check your network connection and try again in a moment.');
    // A programming error is not a network failure.
    expect(errorText(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe("Cannot read properties of undefined (reading 'id')");
  });

  it('an outage of the sign-in provider names it, and nothing of its address', async () => {
    await i18n.changeLanguage('de');
    expect(errorText(refused({ error: 'The sign-in provider Okta could not be reached', code: 'oidc_provider_unreachable', provider: 'Okta' }))).toBe(
      de.errors.oidc_provider_unreachable.replace('{{provider}}', 'Okta'),
    );
    await i18n.changeLanguage('en');
  });
});

