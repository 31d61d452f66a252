import type { CurrentUser } from '@gantry/contracts';
import { isTotpRequired } from '../features/auth/api/auth-api';
import { api } from '../lib/api-client';

/** Who this browser's session belongs to now: the user, 'verify' (waiting for the code) or null. */
export async function signedInAs(): Promise<CurrentUser | 'verify' | null> {
  try {
    return await api.get<CurrentUser>('/user', { quiet401: true });
  } catch (e) {
    return isTotpRequired(e) ? 'verify' : null;
  }
}

/**
 * Marks the address a provider's sign-in window comes back to. The console's pages send COOP
 * same-origin, so the window loses its tie to the page that opened it on the way to the
 * provider: that page cannot close it, but the window, back here, can close itself.
 */
const SIGN_IN_WINDOW_MARK = 'gantry_sign_in_window';

/** `path` (with its query string) marked as the provider window's landing. */
export function markedLanding(path: string): string {
  const url = new URL(path, window.location.origin);
  url.searchParams.set(SIGN_IN_WINDOW_MARK, '1');
  return `${url.pathname}${url.search}`;
}

/**
 * In the provider's window, back from the provider: the page that opened it has the session now
 * (it asks every second), so the window closes. When the browser keeps it open anyway, it is a
 * console window like any other, at the same address without the mark.
 */
export function closeSignInWindow(): void {
  const url = new URL(window.location.href);
  if (!url.searchParams.has(SIGN_IN_WINDOW_MARK)) return;
  url.searchParams.delete(SIGN_IN_WINDOW_MARK);
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  window.close();
}
