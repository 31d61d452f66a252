/**
 * The console's languages, each named in itself so a reader finds theirs whatever is shown now.
 * `code` is both the stored choice (StorageKeys.lang) and the file name in src/locales/.
 * Kept apart from i18n.ts (which starts i18next) so tests can read the list without a browser.
 */
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'es', name: 'Español' },
  { code: 'ru', name: 'Русский' },
  { code: 'de', name: 'Deutsch' },
  { code: 'nl', name: 'Nederlands' },
  { code: 'zh-CN', name: '简体中文' },
  { code: 'zh-TW', name: '繁體中文' },
  { code: 'fr', name: 'Français' },
  { code: 'it', name: 'Italiano' },
  { code: 'pl', name: 'Polski' },
  { code: 'pt', name: 'Português' },
  { code: 'pt-BR', name: 'Português (Brasil)' },
  { code: 'ja', name: '日本語' },
  { code: 'ko', name: '한국어' },
] as const;

export type LanguageCode = (typeof LANGUAGES)[number]['code'];

/** The language every other falls back to for a missing key; its dictionary is bundled. */
export const DEFAULT_LANGUAGE: LanguageCode = 'en';

export function isLanguage(code: string | null | undefined): code is LanguageCode {
  return LANGUAGES.some((l) => l.code === code);
}

/**
 * The console's language for a browser's preferred ones (`navigator.languages`, most wanted
 * first): the first that the console has, exactly ("pt-BR") or by its language ("de-AT" → de,
 * "pt-PT" → pt); Chinese by its script (Traditional for zh-TW, zh-HK, zh-Hant; else Simplified).
 * English when none fits.
 */
export function detectLanguage(preferred: readonly string[]): LanguageCode {
  for (const tag of preferred) {
    const exact = LANGUAGES.find((l) => l.code.toLowerCase() === tag.toLowerCase());
    if (exact) return exact.code;
    // Read off the tag itself, not with `Intl.Locale`: its first use loads the likely-subtags data,
    // tens of milliseconds of a phone's first load for what three subtags tell.
    if (!/^[a-z]{2,3}(-[a-z0-9]{1,8})*$/i.test(tag)) continue;
    const [language, ...rest] = tag.toLowerCase().split('-');
    if (language === 'zh') {
      const script = rest.find((s) => s.length === 4);
      const traditional = script ? script === 'hant' : rest.some((s) => ['tw', 'hk', 'mo'].includes(s));
      return traditional ? 'zh-TW' : 'zh-CN';
    }
    const base = LANGUAGES.find((l) => l.code === language);
    if (base) return base.code;
  }
  return DEFAULT_LANGUAGE;
}
