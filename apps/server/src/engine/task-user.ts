import fs from 'node:fs';
import { ConfigError } from '../config/config.js';

/** The host user a task process runs as. */
export interface TaskIdentity {
  uid: number;
  gid: number;
  /** The name /etc/passwd gives it, when it has one. */
  name: string | null;
}

/** The uid and gid nobody-like users have on most systems, when /etc/passwd names none. */
const NOBODY = 65534;

/**
 * Who tasks run as. A root server never lets a task keep uid 0: GANTRY_TASK_USER (a name or
 * uid[:gid]) or else `nobody`. A non-root server cannot change user, so its tasks run as itself
 * (null), still without any capability.
 */
export function resolveTaskUser(
  setting: string | null,
  serverUid: number | null = currentUid(),
  passwdFile = '/etc/passwd',
): TaskIdentity | null {
  if (serverUid !== 0) return null;
  const entries = readPasswd(passwdFile);
  if (setting === null) {
    const nobody = entries.find((e) => e.name === 'nobody');
    return nobody && nobody.uid !== 0 ? nobody : { uid: NOBODY, gid: NOBODY, name: null };
  }
  const numeric = /^(\d+)(?::(\d+))?$/.exec(setting);
  let identity: TaskIdentity;
  if (numeric) {
    const uid = Number(numeric[1]);
    const known = entries.find((e) => e.uid === uid);
    identity = {
      uid,
      gid: numeric[2] !== undefined ? Number(numeric[2]) : (known?.gid ?? uid),
      name: known?.name ?? null,
    };
  } else {
    const known = entries.find((e) => e.name === setting);
    if (!known)
      throw new ConfigError(
        `Invalid configuration: GANTRY_TASK_USER names "${setting}", which this machine does not know (create it, or give a uid:gid)`,
      );
    identity = known;
  }
  if (identity.uid === 0 || identity.gid === 0)
    throw new ConfigError('Invalid configuration: GANTRY_TASK_USER must not be root (uid or gid 0)');
  return identity;
}

export function currentUid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}

/** The name /etc/passwd gives `uid`, when it has one. */
export function userName(uid: number, passwdFile = '/etc/passwd'): string | null {
  return readPasswd(passwdFile).find((e) => e.uid === uid)?.name ?? null;
}

function readPasswd(file: string): TaskIdentity[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    const f = line.split(':');
    if (f.length < 4 || !/^\d+$/.test(f[2]!) || !/^\d+$/.test(f[3]!)) return [];
    return [{ name: f[0]!, uid: Number(f[2]), gid: Number(f[3]) }];
  });
}
