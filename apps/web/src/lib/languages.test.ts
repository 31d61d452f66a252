import { describe, expect, it } from 'vitest';
import { detectLanguage } from './languages';

describe("the browser's language on a first visit", () => {
  it.each([
    [['de-DE', 'en'], 'de'],
    [['pt-BR'], 'pt-BR'],
    [['pt-br'], 'pt-BR'],
    [['pt-PT', 'en'], 'pt'],
    [['pt'], 'pt'],
    [['zh-TW'], 'zh-TW'],
    [['zh-HK'], 'zh-TW'],
    [['zh-Hant'], 'zh-TW'],
    [['zh'], 'zh-CN'],
    [['zh-SG'], 'zh-CN'],
    [['zh-Hans-HK'], 'zh-CN'],
    [['zh-Hant-CN'], 'zh-TW'],
    [['zh-MO'], 'zh-TW'],
    [['-de'], 'en'],
    [['ja-JP'], 'ja'],
    [['es-419'], 'es'],
    // The first the console has wins, not the first given.
    [['sv-SE', 'fi', 'ru-RU', 'de'], 'ru'],
    [['sv-SE', 'not a tag'], 'en'],
    [[], 'en'],
  ] as const)('%j → %s', (preferred, expected) => {
    expect(detectLanguage(preferred)).toBe(expected);
  });
});
