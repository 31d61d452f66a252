import type { Localization } from '@mui/material/locale';

/** MUI's own texts (table paging, "No options", …) per console language; English is MUI's default. */
const MUI_NAMES: Record<string, string> = {
  es: 'esES',
  ru: 'ruRU',
  de: 'deDE',
  nl: 'nlNL',
  'zh-CN': 'zhCN',
  'zh-TW': 'zhTW',
  fr: 'frFR',
  it: 'itIT',
  pl: 'plPL',
  pt: 'ptPT',
  'pt-BR': 'ptBR',
  ja: 'jaJP',
  ko: 'koKR',
};

/** Loads MUI's texts for a language (one lazy chunk, fetched only for a language other than English). */
export async function loadMuiLocale(lang: string): Promise<Localization | null> {
  const name = MUI_NAMES[lang];
  if (!name) return null;
  const all = (await import('@mui/material/locale')) as unknown as Record<string, Localization>;
  return all[name] ?? null;
}
