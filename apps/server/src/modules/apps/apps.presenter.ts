import { APP_EXECUTABLES, APP_IDS, APP_TITLES, type App, type AppId } from '@gantry/contracts';
import type { AppRow } from './apps.repository.js';

/** What a built-in app is until an admin changes it; earlier ones in APP_IDS come first. */
export function builtinDefaults(id: AppId): Omit<AppRow, 'created'> {
  return {
    id,
    title: APP_TITLES[id],
    icon: id,
    path: APP_EXECUTABLES[id],
    priority: APP_IDS.length - APP_IDS.indexOf(id),
    args: '[]',
    active: null,
  };
}

/** The API shape of an app; `active` null in the row means "when its executable is found". */
export function presentApp(row: Omit<AppRow, 'created'>, builtin: boolean, found: boolean): App {
  return {
    id: row.id,
    title: row.title,
    icon: row.icon,
    path: row.path,
    priority: row.priority,
    args: parseArgs(row.args),
    active: row.active === null ? found : row.active === 1,
    builtin,
    found,
  };
}

function parseArgs(text: string): string[] {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}
