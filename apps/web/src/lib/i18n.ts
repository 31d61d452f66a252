import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from '../locales/en.json';
import { DEFAULT_LANGUAGE, detectLanguage, isLanguage, LANGUAGES, type LanguageCode } from './languages';
import { storage, StorageKeys } from './storage';

export { LANGUAGES, type LanguageCode };

type Dictionary = typeof en;

// English is bundled (it is the fallback for any missing key); every other dictionary is a chunk
// of its own, downloaded only when that language is chosen.
const dictionaries = import.meta.glob<{ default: Dictionary }>(['../locales/*.json', '!../locales/en.json', '!../locales/glossary.json']);

async function loadDictionary(code: LanguageCode): Promise<void> {
  if (i18n.hasResourceBundle(code, 'translation')) return;
  const load = dictionaries[`../locales/${code}.json`];
  if (!load) throw new Error(`No dictionary for the language ${code}`);
  i18n.addResourceBundle(code, 'translation', (await load()).default);
}

// `lang` lets screen readers, hyphenation and the browser's own widgets follow the language.
i18n.on('languageChanged', (code: string) => {
  document.documentElement.lang = code;
  document.documentElement.dir = i18n.dir(code);
});

let latestRequest = 0;

/**
 * Downloads the language's dictionary if needed, then shows it. When choices overlap, the last
 * one wins even if an earlier dictionary arrives after it. Answers whether it is the one shown.
 */
async function showLanguage(code: LanguageCode): Promise<boolean> {
  const request = ++latestRequest;
  await loadDictionary(code);
  if (request !== latestRequest) return false;
  await i18n.changeLanguage(code);
  return true;
}

/** The user's choice (the language menu): shown, and remembered over the browser's language. */
export async function setLanguage(code: LanguageCode): Promise<void> {
  if (await showLanguage(code)) storage.set(StorageKeys.lang, code);
}

/**
 * The language a page opens in: the one the user chose, else the browser's first one the
 * console has (not remembered, so a browser set to another language later is followed).
 */
function initialLanguage(): LanguageCode {
  const saved = storage.get(StorageKeys.lang);
  if (isLanguage(saved)) return saved;
  const preferred = navigator.languages?.length ? navigator.languages : [navigator.language];
  return detectLanguage(preferred.filter(Boolean));
}

const initial = initialLanguage();

/**
 * Settles once the initial language can be shown; main.tsx renders after it, so the first screen
 * is never drawn in English and then redrawn. A dictionary that fails to download leaves English.
 */
export const i18nReady: Promise<void> = i18n
  .use(initReactI18next)
  .init({
    resources: { [DEFAULT_LANGUAGE]: { translation: en } },
    lng: DEFAULT_LANGUAGE,
    fallbackLng: DEFAULT_LANGUAGE,
    // pt-BR falls back to English, not to pt, which is a separate download.
    load: 'currentOnly',
    interpolation: { escapeValue: false },
  })
  .then(async () => {
    if (initial !== DEFAULT_LANGUAGE) await showLanguage(initial);
  })
  .catch(() => undefined);

export default i18n;
