import { describe, expect, it } from 'vitest';
import { isStaleBuildError } from './stale-build';

describe('isStaleBuildError', () => {
  it("knows each browser's words for a chunk that failed to load", () => {
    expect(isStaleBuildError(new TypeError('Failed to fetch dynamically imported module: http://x/assets/keys-abc.js'))).toBe(true);
    expect(isStaleBuildError(new TypeError('error loading dynamically imported module: http://x/assets/keys-abc.js'))).toBe(true);
    expect(isStaleBuildError(new TypeError('Importing a module script failed.'))).toBe(true);
    expect(isStaleBuildError(new Error('Unable to preload CSS for /assets/x.css'))).toBe(true);
  });

  it('leaves other failures to the error view', () => {
    expect(isStaleBuildError(new TypeError('Failed to fetch'))).toBe(false);
    expect(isStaleBuildError(new Error('Internal server error'))).toBe(false);
    expect(isStaleBuildError(null)).toBe(false);
  });
});
