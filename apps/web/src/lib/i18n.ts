import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from '../locales/en.json';
import { storage, StorageKeys } from './storage';

/** Languages with a dictionary; en.json is the source of keys, others are added beside it. */
export const LANGUAGES = [{ code: 'en', name: 'English' }] as const;

const saved = storage.get(StorageKeys.lang);
const initial = LANGUAGES.some((l) => l.code === saved) ? saved! : 'en';

void i18n.use(initReactI18next).init({
  resources: { en: { translation: en } },
  lng: initial,
  fallbackLng: 'en',
  interpolation: { escapeValue: false },
});

export function setLanguage(code: string): void {
  storage.set(StorageKeys.lang, code);
  void i18n.changeLanguage(code);
}

export default i18n;
