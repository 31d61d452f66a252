import type { AppShell } from './shell/app-shell';

let shell: typeof AppShell | null = null;

/**
 * The app shell's code. The session gate starts loading it while it asks for the session and
 * waits for both, so a signed-in page neither waits for the session and then for the shell nor
 * suspends once more on it.
 */
export async function loadShell(): Promise<void> {
  shell = (await import('./shell/app-shell')).AppShell;
}

/** The shell's component once loaded (null before). */
export function loadedShell(): typeof AppShell | null {
  return shell;
}
