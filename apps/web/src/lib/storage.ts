/** The few things the console remembers in the browser (spec: lang, darkMode, projectId, ...). */
export const storage = {
  get(key: string): string | null {
    try {
      return window.localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key: string, value: string): void {
    try {
      window.localStorage.setItem(key, value);
    } catch {
      // Private mode or quota: the choice just is not remembered.
    }
  },
  remove(key: string): void {
    try {
      window.localStorage.removeItem(key);
    } catch {
      // ignore
    }
  },
};

export const StorageKeys = {
  lang: 'lang',
  darkMode: 'darkMode',
  projectId: 'projectId',
  columns: (table: string) => `columns:${table}`,
  fullscreen: (dialog: string) => `fullscreen:${dialog}`,
  /** The templates tab (view id) last visited in a project; absent for All. */
  lastView: (projectId: number) => `lastView:${projectId}`,
  logTimestamps: 'log:timestamps',
} as const;
