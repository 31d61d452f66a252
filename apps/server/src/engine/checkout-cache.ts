import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileThread } from './file-thread.js';
import type { ProjectCheckouts } from './ports.js';

/** What a cached checkout was cloned at. */
export interface CachedCommit {
  hash: string;
  message: string;
}

/** An entry's commit.json: the commit, and how many files, folders and links its tree holds. */
interface StoredCommit extends CachedCommit {
  entries?: number;
}

/** Entries kept per node; each (project, repository, branch, commit asked) keeps only its latest. */
const MAX_ENTRIES = 32;

/**
 * Entries up to this many files, folders and links are copied in one message to the file thread;
 * each step of a copy through libuv's pool costs more than the step itself. Bigger ones are
 * copied entry by entry that way, so one large repository does not hold up other runs' copies.
 */
const SYNC_COPY_MAX_ENTRIES = 2000;

/** A half-made or half-removed entry older than this was left by a process that died. */
const LEFTOVER_AGE_MS = 60 * 60 * 1000;

/** `<scope>-<inputs>-<refs>`: the scope readable (a project's entries are found by it), the rest hashed. */
const ENTRY = /^([A-Za-z0-9_]+)-([0-9a-f]{16})-([0-9a-f]{16})$/;

/** An entry of a project's runs (projectScope), with the project's id. */
const PROJECT_ENTRY = /^project_(\d+)-/;

const short = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** A scope as it starts its entries' names (the exact scope is in their hash too). */
const scopeName = (scope: string) => scope.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 64) || '_';

/** The scope of a project's runs: its entries serve its runs only, and go with its cache. */
export function projectScope(projectId: number): string {
  return `project_${projectId}`;
}

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;

/**
 * Checkouts the server's own git made, kept in a folder no task sees (the data folder), so a run
 * of a repository whose refs have not moved copies the files instead of starting git three times
 * (clone, its shell, upload-pack) and fetching the pack again.
 *
 * An entry is keyed by its scope (the project: one project's credentials never serve another's
 * checkout), the clone's inputs and a fingerprint of the source's refs, so a copy holds exactly
 * what a fresh clone would. Entries are filled from a clone before any task process has run in
 * its workspace, never read or written by a task, and published by an atomic rename: a half-made
 * entry is never seen. Copies recreate links as links and follow none.
 */
export class CheckoutCache implements ProjectCheckouts {
  private cleaned: Promise<void> | undefined;

  constructor(
    readonly root: string,
    private readonly maxEntries = MAX_ENTRIES,
    private readonly syncCopyMax = SYNC_COPY_MAX_ENTRIES,
  ) {}

  /**
   * A node's cache in `root` keeping `entries` checkouts; none for 0, and what an earlier start
   * kept there is removed (in the background: nothing waits for it).
   */
  static forNode(root: string, entries: number): CheckoutCache | undefined {
    if (entries > 0) return new CheckoutCache(root, entries);
    void fs.promises.rm(root, { recursive: true, force: true }).catch(() => undefined);
    return undefined;
  }

  /** The entry name for a clone's inputs (`scope`, url, branch, commit) and its source's refs. */
  key(scope: string, inputs: string, fingerprint: string): string {
    return `${scopeName(scope)}-${short(`${scope}\n${inputs}`)}-${short(fingerprint)}`;
  }

  /**
   * Copies the entry's checkout to `dir` (which must not exist) and answers its commit; null when
   * there is no such entry or the copy failed (what it made is removed: the caller clones).
   */
  async copyTo(key: string, dir: string): Promise<CachedCommit | null> {
    const entry = path.join(this.root, key);
    let stored: StoredCommit;
    try {
      // A few bytes: read at once, cheaper than a round trip through libuv's pool.
      stored = JSON.parse(fs.readFileSync(path.join(entry, 'commit.json'), 'utf8')) as StoredCommit;
    } catch {
      return null;
    }
    if (typeof stored?.hash !== 'string' || typeof stored.message !== 'string') return null;
    const commit: CachedCommit = { hash: stored.hash, message: stored.message };
    try {
      // (An entry stored before its size was recorded is copied off the loop.)
      if (typeof stored.entries === 'number' && stored.entries <= this.syncCopyMax)
        await fileThread.copyTree(path.join(entry, 'tree'), dir);
      else await copyTree(path.join(entry, 'tree'), dir);
      // The last use decides which entries go first when there are too many (nothing waits for it).
      const now = new Date();
      void fs.promises.utimes(entry, now, now).catch(() => undefined);
      return commit;
    } catch {
      // Evicted meanwhile, or the disk is full: a clone does it the usual way.
      await fs.promises.rm(dir, { recursive: true, force: true });
      return null;
    }
  }

  /**
   * Keeps a copy of the fresh checkout `dir` (no task process has run in it yet) under `key`, and
   * drops the entries it replaces (same inputs, older refs) and the least recently used past the
   * bound. Best effort: a failure leaves the cache as it was.
   */
  async store(key: string, dir: string, commit: CachedCommit): Promise<void> {
    this.cleaned ??= this.removeLeftovers().catch(() => undefined);
    await this.cleaned;
    const temp = path.join(this.root, `.tmp-${randomBytes(6).toString('hex')}`);
    try {
      await fs.promises.mkdir(temp, { recursive: true, mode: 0o700 });
      const entries = await copyTree(dir, path.join(temp, 'tree'));
      const stored: StoredCommit = { ...commit, entries };
      await fs.promises.writeFile(path.join(temp, 'commit.json'), JSON.stringify(stored), { mode: 0o600 });
      await fs.promises.rename(temp, path.join(this.root, key));
    } catch {
      // Another run stored the same entry first (the rename found it there), or the disk is full.
      await fs.promises.rm(temp, { recursive: true, force: true }).catch(() => undefined);
      return;
    }
    await this.evict(key).catch(() => undefined);
  }

  private async evict(kept: string): Promise<void> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.root);
    } catch {
      return;
    }
    // The same scope and inputs: an entry for refs that have moved since.
    const sameInputs = kept.slice(0, kept.lastIndexOf('-') + 1);
    const entries: Array<{ name: string; used: number }> = [];
    for (const name of names) {
      if (!ENTRY.test(name) || name === kept) continue;
      if (name.startsWith(sameInputs)) {
        await this.remove(name);
        continue;
      }
      const st = await fs.promises.lstat(path.join(this.root, name)).catch(() => null);
      if (st?.isDirectory()) entries.push({ name, used: st.mtimeMs });
    }
    entries.sort((a, b) => a.used - b.used);
    for (const e of entries.slice(0, Math.max(0, entries.length + 1 - this.maxEntries))) await this.remove(e.name);
  }

  /** Removes every entry (a runner's "clear cache"); answers how many. Runs copying meanwhile clone instead. */
  clear(): Promise<number> {
    return this.removeWhere(() => true);
  }

  /** Removes a project's entries (its "clear cache"); answers how many. */
  clearProject(projectId: number): Promise<number> {
    const prefix = `${scopeName(projectScope(projectId))}-`;
    return this.removeWhere((name) => name.startsWith(prefix));
  }

  /**
   * Removes the entries of projects not in `existing`: a deleted project's checkouts go on the
   * node that deleted it at once, and on the others at their next start (or as they age out).
   */
  pruneProjects(existing: ReadonlySet<number>): Promise<number> {
    return this.removeWhere((name) => {
      const project = PROJECT_ENTRY.exec(name);
      return project !== null && !existing.has(Number(project[1]));
    });
  }

  private async removeWhere(chosen: (name: string) => boolean): Promise<number> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.root);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      if (!ENTRY.test(name) || !chosen(name)) continue;
      // One that cannot go (its folder's permissions changed) stays; the rest still go, and the
      // caller (a project's Clear cache) is not failed for it.
      try {
        await this.remove(name);
        removed++;
      } catch {
        // Left where it is (counted as not removed).
      }
    }
    return removed;
  }

  /** Renamed away first, so a copy in progress fails (and clones) instead of copying half a tree. */
  private async remove(name: string): Promise<void> {
    const trash = path.join(this.root, `.old-${randomBytes(6).toString('hex')}`);
    try {
      await fs.promises.rename(path.join(this.root, name), trash);
    } catch (e) {
      if (errno(e) === 'ENOENT') return;
      throw e;
    }
    await fs.promises.rm(trash, { recursive: true, force: true });
  }

  /**
   * What an earlier process left half-made or half-removed. Only old ones: another node sharing
   * the folder may be filling an entry right now.
   */
  private async removeLeftovers(): Promise<void> {
    await fs.promises.mkdir(this.root, { recursive: true, mode: 0o700 });
    const before = Date.now() - LEFTOVER_AGE_MS;
    for (const name of await fs.promises.readdir(this.root)) {
      if (!name.startsWith('.tmp-') && !name.startsWith('.old-')) continue;
      const st = await fs.promises.lstat(path.join(this.root, name)).catch(() => null);
      if (st && st.mtimeMs < before) await fs.promises.rm(path.join(this.root, name), { recursive: true, force: true });
    }
  }
}

/**
 * Copies folders, regular files (with their mode) and links (as links, never followed) from `src`
 * to a new folder `dst`; anything else (a pipe, a device) is an error. One entry after another:
 * all at once, ten runs' copies flooded the thread pool every other file operation waits in.
 * Answers how many files, folders and links it copied.
 */
async function copyTree(src: string, dst: string): Promise<number> {
  const p = fs.promises;
  await p.mkdir(dst);
  let count = 0;
  for (const e of await p.readdir(src, { withFileTypes: true })) {
    const from = path.join(src, e.name);
    const to = path.join(dst, e.name);
    if (e.isDirectory()) count += await copyTree(from, to);
    else if (e.isSymbolicLink()) await p.symlink(await p.readlink(from), to);
    else if (e.isFile()) await p.copyFile(from, to, fs.constants.COPYFILE_EXCL);
    else throw new Error(`${from}: neither a file, a folder nor a link`);
    count++;
  }
  return count;
}
