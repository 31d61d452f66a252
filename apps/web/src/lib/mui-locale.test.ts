import { describe, expect, it } from 'vitest';
import { LANGUAGES } from './languages';
import { loadMuiLocale } from './mui-locale';

type PaginationProps = { labelRowsPerPage?: string; labelDisplayedRows?: (p: { from: number; to: number; count: number; page: number }) => string };
const paginationOf = (l: Awaited<ReturnType<typeof loadMuiLocale>>) =>
  (l?.components?.MuiTablePagination?.defaultProps ?? {}) as PaginationProps;

describe('MUI texts per console language', () => {
  it('has MUI texts for every language but English, which is MUI default', async () => {
    expect(await loadMuiLocale('en')).toBeNull();
    for (const { code } of LANGUAGES.filter((l) => l.code !== 'en')) {
      const locale = await loadMuiLocale(code);
      expect(locale, code).not.toBeNull();
      // Table paging is what the console shows of MUI's own texts.
      expect(paginationOf(locale).labelDisplayedRows?.({ from: 1, to: 20, count: 45, page: 0 }), code).not.toBe('1–20 of 45');
    }
  });

  it('gives German paging in German and Japanese paging in Japanese', async () => {
    expect(paginationOf(await loadMuiLocale('de')).labelDisplayedRows?.({ from: 1, to: 20, count: 45, page: 0 })).toBe('1–20 von 45');
    expect(paginationOf(await loadMuiLocale('ja')).labelDisplayedRows?.({ from: 1, to: 20, count: 45, page: 0 })).toContain('45');
    expect(paginationOf(await loadMuiLocale('ja')).labelDisplayedRows?.({ from: 1, to: 20, count: 45, page: 0 })).not.toContain(' of ');
  });
});
