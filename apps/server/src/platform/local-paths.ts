import { ErrorCodes } from '@gantry/contracts';
import fs from 'node:fs';
import path from 'node:path';

/** The refusal's stable code, beside `error` (and `field`) in a 400. */
export const LOCAL_PATH_NOT_ALLOWED = ErrorCodes.localPathNotAllowed;

/** Why a repository URL git would read from this machine's disk is refused. */
export const LOCAL_REPOSITORY_REFUSED =
  "Local repository paths are allowed only below a folder listed in GANTRY_ALLOWED_LOCAL_PATHS (never in Gantry's data or task folder)";

/** Why an inventory file outside its repository is refused. */
export const LOCAL_INVENTORY_REFUSED =
  "Inventory files outside the repository are allowed only below a folder listed in GANTRY_ALLOWED_LOCAL_PATHS (never in Gantry's data or task folder)";

/** Why a `<transport>::<address>` URL is refused: git would run a remote helper (ext:: runs a command). */
export const REMOTE_HELPER_REFUSED =
  'Repository URLs that name a git remote helper (such as ext:: or fd::) are not allowed';

/**
 * How git reaches a repository URL, by git's own rules (`git help clone`, GIT URLS; transport.c):
 * `<transport>::<address>` runs a remote helper; `file://` and anything without a colon before
 * its first slash (`/srv/repo`, `./repo`, `../repo`, `repo`, `./a:b`) is a path on this machine,
 * `path` being null when it is relative or cannot be told (a `file://` URL naming a host, bad
 * percent-encoding); the rest (`https://`, `ssh://`, `git://`, `user@host:repo`) goes over the network.
 */
export function gitUrlAccess(
  url: string,
): { kind: 'remote' } | { kind: 'helper' } | { kind: 'local'; path: string | null } {
  const u = url.trim();
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*::/.test(u)) return { kind: 'helper' };
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(u)?.[1];
  if (scheme) {
    if (scheme.toLowerCase() !== 'file') return { kind: 'remote' };
    // git decodes %XX in URLs; `file:///p` and `file://localhost/p` name /p.
    const rest = u.slice(scheme.length + 3).replace(/^localhost(?=\/)/i, '');
    try {
      const decoded = decodeURIComponent(rest);
      return { kind: 'local', path: decoded.startsWith('/') && !decoded.includes('\0') ? decoded : null };
    } catch {
      return { kind: 'local', path: null };
    }
  }
  const colon = u.indexOf(':');
  const slash = u.indexOf('/');
  if (colon === -1 || (slash !== -1 && slash < colon)) return { kind: 'local', path: path.isAbsolute(u) ? u : null };
  return { kind: 'remote' };
}

/** What the server's services and engine ask of the policy; each answer is null or the refusal. */
export interface LocalPathCheck {
  /** For a repository URL of any kind: null when git may use it. */
  repositoryProblem(url: string): string | null;
  /** For a file inventory's path: null when it is inside its repository (relative) or allowed. */
  inventoryProblem(inventoryPath: string): string | null;
}

export interface LocalPathPolicyOptions {
  /** GANTRY_ALLOWED_LOCAL_PATHS. */
  allowed: readonly string[];
  /** Refused even below an allowed folder; the data folder also holds the demo repositories. */
  dataDir: string;
  taskDir: string;
  /** fs.realpathSync.native unless a test says otherwise. */
  realpath?: (p: string) => string;
}

/**
 * Local paths (repositories on this machine's disk, absolute inventory files) are allowed only
 * below the folders an admin lists in GANTRY_ALLOWED_LOCAL_PATHS, compared by real path so a
 * symlink cannot lead out of them, and never inside the data folder or the task folder (other
 * projects' running workspaces). The demo projects' own repositories (`<data>/demo/project_<id>`,
 * the same few public scripts each) are allowed as they are, so a demo runs with nothing set.
 */
export class LocalPathPolicy implements LocalPathCheck {
  private readonly realpath: (p: string) => string;

  constructor(private readonly o: LocalPathPolicyOptions) {
    // The native one resolves `link/..` as git and the kernel do; the JS one first drops `x/..` as text.
    this.realpath = o.realpath ?? fs.realpathSync.native;
  }

  repositoryProblem(url: string): string | null {
    const access = gitUrlAccess(url);
    switch (access.kind) {
      case 'remote':
        return null;
      case 'helper':
        return REMOTE_HELPER_REFUSED;
      case 'local':
        return access.path !== null && (this.isDemoRepository(access.path) || this.allows(access.path))
          ? null
          : LOCAL_REPOSITORY_REFUSED;
    }
  }

  inventoryProblem(inventoryPath: string): string | null {
    const p = inventoryPath.trim();
    if (!path.isAbsolute(p)) return null;
    return this.allows(p) && !this.holdsRefused(p) ? null : LOCAL_INVENTORY_REFUSED;
  }

  /** Whether a folder (an inventory folder ansible reads whole) holds the data or the task folder. */
  private holdsRefused(p: string): boolean {
    const real = this.real(p);
    return (
      real === null ||
      [this.o.dataDir, this.o.taskDir].some((d) => {
        const r = this.real(d);
        return r !== null && within(real, r);
      })
    );
  }

  private allows(p: string): boolean {
    const real = this.real(p);
    if (real === null) return false;
    for (const refused of [this.o.dataDir, this.o.taskDir]) {
      const r = this.real(refused);
      if (r === null || within(r, real)) return false;
    }
    return this.o.allowed.some((a) => {
      const r = this.real(a);
      return r !== null && within(r, real);
    });
  }

  private isDemoRepository(p: string): boolean {
    const real = this.real(p);
    const data = this.real(this.o.dataDir);
    return (
      real !== null &&
      data !== null &&
      path.dirname(real) === path.join(data, 'demo') &&
      /^project_\d+$/.test(path.basename(real))
    );
  }

  /**
   * The real path of an absolute path: symlinks resolved as far as it exists, the missing rest
   * appended; null when a missing part is followed by `..` (it could become a symlink later).
   */
  private real(p: string): string | null {
    if (!path.isAbsolute(p)) return null;
    const parts = p.split('/');
    for (let i = parts.length; i > 0; i--) {
      let head: string;
      try {
        head = this.realpath(parts.slice(0, i).join('/') || '/');
      } catch {
        continue;
      }
      const rest = parts.slice(i).filter((s) => s !== '' && s !== '.');
      return rest.includes('..') ? null : path.join(head, ...rest);
    }
    return null;
  }
}

/** Whether `p` is `dir` or below it (both absolute and resolved). */
function within(dir: string, p: string): boolean {
  const r = path.relative(dir, p);
  return r === '' || (r !== '..' && !r.startsWith(`..${path.sep}`) && !path.isAbsolute(r));
}
