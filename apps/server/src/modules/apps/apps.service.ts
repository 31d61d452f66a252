import fs from 'node:fs';
import path from 'node:path';
import { APP_EXECUTABLES, APP_IDS, APP_TITLES, type App, type AppId } from '@gantry/contracts';

/**
 * The task applications and whether each can run here: an app is active when its executable is
 * found on the server's PATH.
 */
export class AppsService {
  constructor(private readonly systemPath: string) {}

  list(): App[] {
    return APP_IDS.map((id, i) => ({
      id,
      title: APP_TITLES[id],
      icon: id,
      path: APP_EXECUTABLES[id],
      priority: APP_IDS.length - i,
      args: '',
      active: this.isInstalled(id),
    }));
  }

  executables(): Record<AppId, string> {
    return { ...APP_EXECUTABLES };
  }

  private isInstalled(id: AppId): boolean {
    const exe = APP_EXECUTABLES[id];
    return this.systemPath.split(path.delimiter).some((dir) => {
      try {
        fs.accessSync(path.join(dir, exe), fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  }
}
