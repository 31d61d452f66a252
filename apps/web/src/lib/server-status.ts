import { useSyncExternalStore } from 'react';
import { reloadForNewBuild } from './stale-build';

/** The first retry after the server went away, doubled each time up to the last. */
const FIRST_RETRY_MS = 1_000;
const LAST_RETRY_MS = 15_000;

type Listener = () => void;

let offline = false;
let delay = FIRST_RETRY_MS;
let timer: ReturnType<typeof setTimeout> | undefined;
let checking = false;
/** The server's version when this page loaded (GET /api/info): another one later means an upgrade. */
let loadedVersion: string | null = null;
const listeners = new Set<Listener>();
const backListeners = new Set<Listener>();

function setOffline(value: boolean): void {
  if (offline === value) return;
  offline = value;
  listeners.forEach((l) => l());
}

/** Remembers the version the page was loaded against (the first one seen). */
export function rememberServerVersion(version: string): void {
  loadedVersion ??= version;
}

/** A call could not reach the server (a network error, or a proxy's 502/503/504): retry in the background. */
export function reportUnreachable(): void {
  if (offline) return;
  setOffline(true);
  delay = FIRST_RETRY_MS;
  schedule();
}

/** A call got the server's answer: if it was thought gone, check now rather than at the next retry. */
export function reportReachable(): void {
  if (offline) retryNow();
}

/** Something hints the server went away (the socket dropped): one ping, the banner if it fails. */
export function suspectUnreachable(): void {
  if (offline) return;
  void ping().then((ok) => {
    if (!ok) reportUnreachable();
  });
}

/** Checks at once (the banner's button). */
export function retryNow(): void {
  clearTimeout(timer);
  void check();
}

/** Called when the server answers again after being unreachable (failed queries can be read again). */
export function onServerBack(fn: Listener): () => void {
  backListeners.add(fn);
  return () => backListeners.delete(fn);
}

/** Whether the server is unreachable now; re-renders when that changes. */
export function useServerOffline(): boolean {
  return useSyncExternalStore(subscribe, () => offline);
}

function subscribe(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function schedule(): void {
  clearTimeout(timer);
  timer = setTimeout(() => void check(), delay);
  delay = Math.min(delay * 2, LAST_RETRY_MS);
}

async function check(): Promise<void> {
  if (checking) return;
  checking = true;
  try {
    if (!(await ping())) {
      schedule();
      return;
    }
    // Back: a restart may have brought another build, whose chunks replace this page's.
    if (await serverVersionChanged()) {
      if (reloadForNewBuild()) return;
    }
    setOffline(false);
    backListeners.forEach((l) => l());
  } finally {
    checking = false;
  }
}

async function ping(): Promise<boolean> {
  try {
    return (await fetch('/api/ping', { cache: 'no-store', credentials: 'same-origin' })).ok;
  } catch {
    return false;
  }
}

/**
 * Whether the server now runs another version than when the page loaded (its version names the
 * commit too). False when unknown: no version seen yet (signed out), or the call failed.
 */
export async function serverVersionChanged(): Promise<boolean> {
  if (loadedVersion === null) return false;
  try {
    const res = await fetch('/api/info', { cache: 'no-store', credentials: 'same-origin' });
    if (!res.ok) return false;
    const info = (await res.json()) as { version?: unknown };
    return typeof info.version === 'string' && info.version !== loadedVersion;
  } catch {
    return false;
  }
}

/** After the socket reconnected: the server may have restarted onto another build meanwhile. */
export async function reloadIfServerChanged(): Promise<void> {
  if (await serverVersionChanged()) reloadForNewBuild();
}
