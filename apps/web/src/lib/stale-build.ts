/** When this tab last reloaded itself into a new build (sessionStorage: per tab, survives the reload). */
const RELOADED_AT = 'gantry:reloaded-at';
/** A second reload within this time is refused: the new build fails too, and looping helps no one. */
const RELOAD_GUARD_MS = 60_000;

let reloading = false;

/**
 * Whether an error says code of the page's build could not be loaded: after an upgrade (or a
 * restart onto another build) the old chunk names are gone. Chrome, Firefox and Safari word it
 * differently; Vite's preload of a chunk's CSS has its own.
 */
export function isStaleBuildError(e: unknown): boolean {
  const message = e instanceof Error ? e.message : typeof e === 'string' ? e : '';
  return /dynamically imported module|Importing a module script failed|Unable to preload CSS/i.test(message);
}

/**
 * Reloads the page at its current address, into the build the server serves now. Only once: a
 * reload in the last minute is not repeated (the error then shows instead). Answers whether the
 * page is reloading.
 */
export function reloadForNewBuild(): boolean {
  if (reloading) return true;
  try {
    const last = Number(window.sessionStorage.getItem(RELOADED_AT));
    if (last && Date.now() - last < RELOAD_GUARD_MS) return false;
    window.sessionStorage.setItem(RELOADED_AT, String(Date.now()));
  } catch {
    // Without storage there is no guard against a loop: leave the page as it is.
    return false;
  }
  reloading = true;
  window.location.reload();
  return true;
}

/** Vite announces a lazy chunk (or a file it needs) that failed to load; reload into the new build. */
export function watchStaleBuild(): () => void {
  const onPreloadError = () => void reloadForNewBuild();
  window.addEventListener('vite:preloadError', onPreloadError);
  return () => window.removeEventListener('vite:preloadError', onPreloadError);
}
