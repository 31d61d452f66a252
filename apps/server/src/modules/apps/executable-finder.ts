import fs from 'node:fs';
import path from 'node:path';

/** Answers whether an app's path names an executable here; an adapter so the service needs no fs. */
export type ExecutableFinder = (exe: string) => boolean;

/** An absolute path is checked as it is; a plain name is looked up on the given PATH. */
export function pathExecutableFinder(systemPath: string): ExecutableFinder {
  const executable = (file: string) => {
    try {
      // A missing file (most folders of PATH) answers without an exception, which costs more than the call.
      if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return false;
      fs.accessSync(file, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  return (exe) => {
    if (path.isAbsolute(exe)) return executable(exe);
    return systemPath.split(path.delimiter).some((dir) => dir !== '' && executable(path.join(dir, exe)));
  };
}
