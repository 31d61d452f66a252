import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TaskIdentity } from './task-user.js';

/** Path helpers of the task sandbox: what to hide, show and make passable, on real paths. */

/** /etc/passwd's lines, read again only when the file changed (every sandboxed process needs them). */
let passwdCache: { mtimeMs: number; size: number; lines: readonly string[] } | null = null;

function systemPasswd(): readonly string[] {
  try {
    const st = fs.statSync('/etc/passwd');
    if (passwdCache?.mtimeMs !== st.mtimeMs || passwdCache.size !== st.size)
      passwdCache = { mtimeMs: st.mtimeMs, size: st.size, lines: fs.readFileSync('/etc/passwd', 'utf8').split('\n').filter(Boolean) };
    return passwdCache.lines;
  } catch {
    // No passwd file: the task's entry is all there is.
    return [];
  }
}

/** One private folder (0700) per server for the passwd copies, made on first use and again if removed. */
let passwdDir: string | null = null;
let passwdCount = 0;

/**
 * A copy of /etc/passwd in which the task user's entry names `home` (and exists at all: a uid
 * without an entry breaks Python's getpass), written as a new file of the server's private
 * folder. The caller removes it with the process (`fs.rm` of the returned path).
 */
export function passwdWithHome(owner: TaskIdentity, home: string): string {
  const lines = [...systemPasswd()];
  const mine = lines.findIndex((l) => l.split(':')[2] === String(owner.uid));
  const name = owner.name ?? (mine >= 0 ? lines[mine]!.split(':')[0] : 'gantry-task');
  const entry = `${name}:x:${owner.uid}:${owner.gid}:Gantry task:${home}:/bin/sh`;
  if (mine >= 0) lines[mine] = entry;
  else lines.push(entry);
  const text = `${lines.join('\n')}\n`;
  for (let attempt = 0; ; attempt++) {
    passwdDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-passwd-'));
    const file = path.join(passwdDir, `passwd-${++passwdCount}`);
    try {
      // 'wx': a new file only; 0644 whatever the umask, so the task user can read it inside.
      fs.writeFileSync(file, text, { mode: 0o644, flag: 'wx' });
      fs.chmodSync(file, 0o644);
      return file;
    } catch (e) {
      if (attempt > 0 || (e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      // The folder went (a tmp cleaner): made again once.
      passwdDir = null;
    }
  }
}

/** Folders strictly between a tmpfs root and each path: bwrap creates them for the bind. */
export function passableFolders(paths: string[], roots: string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    const root = roots.filter((r) => under(r, p) && r !== p).sort((a, b) => b.length - a.length)[0];
    if (!root) continue;
    for (let d = path.dirname(p); d !== root && under(root, d); d = path.dirname(d)) out.add(d);
  }
  return [...out].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

/**
 * Ancestors of the shown paths that `owner` may not enter (no search permission): a tmpfs takes
 * their place inside the sandbox so the workspace below is reachable. Their content was out of
 * the task user's reach anyway.
 */
export function unreachableAncestors(paths: string[], owner: TaskIdentity): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    let dir = path.dirname(p);
    const chain: string[] = [];
    while (dir !== '/' && dir !== '.') {
      chain.unshift(dir);
      dir = path.dirname(dir);
    }
    for (const d of chain) {
      if (under('/tmp', d)) break;
      try {
        const st = fs.statSync(d);
        const x = st.uid === owner.uid ? st.mode & 0o100 : st.gid === owner.gid ? st.mode & 0o010 : st.mode & 0o001;
        if (!x) {
          out.add(d);
          break;
        }
      } catch {
        break;
      }
    }
  }
  return topmost([...out]);
}

/**
 * A folder in the server user's home, for both HOME and the passwd entry: ssh reads the passwd
 * home's ~/.ssh whatever HOME says, and ansible's local connection makes its temp files in
 * ~<user>/.ansible/tmp. Hidden, ~/.ssh shows empty; ~/.ansible/tmp becomes a private, writable tmpfs
 * (collections installed in ~/.ansible stay visible).
 */
export function homeFolders(name: string): string[] {
  return serverHomes().map((h) => path.join(h, name));
}

let homes: { env: string | undefined; list: string[] } | null = null;

/** The server's HOME and its passwd home (looked up once: asked for a dozen names per sandboxed process). */
function serverHomes(): string[] {
  if (homes && homes.env === process.env.HOME) return homes.list;
  const found = new Set([os.homedir()]);
  try {
    found.add(os.userInfo().homedir);
  } catch {
    // No passwd entry for this uid (some containers): HOME is all there is.
  }
  homes = { env: process.env.HOME, list: [...found] };
  return homes.list;
}

/** Creates the folders that are missing (0700), so the sandbox can mount over them. */
export function ensureDirs(dirs: string[]): string[] {
  for (const d of dirs) {
    try {
      fs.mkdirSync(d, { recursive: true, mode: 0o700 });
    } catch {
      // A read-only home: ansible's local connection will say what it misses.
    }
  }
  return dirs;
}

/** An executable's absolute path: a path is taken as it is, a name is looked up on `searchPath`. */
export function findExecutable(name: string, searchPath: string): string | null {
  const candidates = name.includes('/')
    ? [path.resolve(name)]
    : searchPath
        .split(path.delimiter)
        .filter((d) => path.isAbsolute(d))
        .map((d) => path.join(d, name));
  for (const c of candidates) {
    try {
      // Most folders of PATH do not hold it: asked without an exception for a missing entry.
      if (!fs.statSync(c, { throwIfNoEntry: false })?.isFile()) continue;
      fs.accessSync(c, fs.constants.X_OK);
      return c;
    } catch {
      // Not here: the next folder.
    }
  }
  return null;
}

/**
 * Binds that show `paths` (PATH folders, then the program) again when they lie under /tmp, by
 * their own or their real path: [real path, path seen]. Skips what an earlier bind already shows
 * and what lies in a hidden folder.
 */
export function underTmp(paths: string[], hiddenDirs: string[]): Array<[string, string]> {
  const binds: Array<[string, string]> = [];
  for (const p of paths) {
    const r = existing([p])[0];
    if (!r || hiddenDirs.some((d) => under(d, r))) continue;
    for (const target of new Set([r, p])) {
      if (under('/tmp', target) && !binds.some(([, shown]) => under(shown, target))) binds.push([r, target]);
    }
  }
  return binds;
}

/**
 * Binds that show paths a task reads outside its workspace (an allowed absolute inventory) where
 * the sandbox would not (/tmp is the task's own): [real path, path seen]. A path in a hidden one,
 * or holding one (the data and task folders, keys, Gantry's settings), is never shown.
 */
export function readableBinds(paths: string[], hidden: string[]): Array<[string, string]> {
  const binds: Array<[string, string]> = [];
  for (const p of paths) {
    const r = existing([p])[0];
    if (!r || hidden.some((h) => under(h, r) || under(r, h))) continue;
    for (const target of new Set([r, p])) {
      if (under('/tmp', target) && !binds.some(([, shown]) => under(shown, target))) binds.push([r, target]);
    }
  }
  return binds;
}

/**
 * Real paths of the entries that exist (bwrap mounts on real paths; a missing one would fail it).
 * A sandboxed process asks for some forty paths, most of them missing: a stat that answers
 * "no entry" without an exception comes first (a thrown error costs more than the call).
 */
export function existing(paths: string[]): string[] {
  return [
    ...new Set(
      paths.flatMap((p) => {
        try {
          if (!fs.statSync(p, { throwIfNoEntry: false })) return [];
          return [fs.realpathSync.native(p)];
        } catch {
          return [];
        }
      }),
    ),
  ];
}

export function real(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return p;
  }
}

export function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** `p` is `dir` or inside it. */
export function under(dir: string, p: string): boolean {
  const r = path.relative(dir, p);
  return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
}

/** Drops folders inside another listed folder, parents first. */
export function topmost(dirs: string[]): string[] {
  return dirs.filter((d) => !dirs.some((o) => o !== d && under(o, d))).sort();
}
