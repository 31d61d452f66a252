import type { ProcessLauncher, ProcessSpec } from './process.js';
import type { CheckoutCache } from './checkout-cache.js';
import { checkedOutCommit } from './git-head.js';
import { localRefsFingerprint } from './git-refs.js';

export interface GitCheckout {
  url: string;
  branch: string | null;
  commitHash: string | null;
  dir: string;
  cwd: string;
  env: Record<string, string>;
  /** Whose checkouts a cached one may serve (the project): set, the cache is used when there is one. */
  cacheScope?: string;
}

const HASH = /^[0-9a-f]{4,64}$/i;

/** Subjects of commits seen by `git log`, by full hash (least recently used dropped first). */
const subjects = new Map<string, string>();
const SUBJECTS_KEPT = 1000;

function rememberSubject(hash: string, message: string): void {
  subjects.delete(hash);
  subjects.set(hash, message);
  if (subjects.size > SUBJECTS_KEPT) subjects.delete(subjects.keys().next().value!);
}

/**
 * Clones with system git: hooks off, the ext:: transport refused, `--` before the URL and
 * directory, the branch given as `--branch=<ref>` (validated not to start with `-`), and a
 * commit checked out with `--detach <hash> --` when asked. Returns the checked-out commit.
 */
export class Git {
  constructor(
    private readonly launcher: ProcessLauncher,
    private readonly log: (line: string) => void,
    private readonly cache?: CheckoutCache,
  ) {}

  async checkout(c: GitCheckout): Promise<{ hash: string; message: string }> {
    if (c.branch && (c.branch.startsWith('-') || /\s/.test(c.branch))) throw new Error('Refusing an option-like branch name');
    if (c.commitHash && !HASH.test(c.commitHash)) throw new Error('Commit hash must be hexadecimal');
    const cached = await this.cacheKey(c);
    if (cached === null) return this.clone(c);
    const copied = await this.cache!.copyTo(cached.key, c.dir);
    if (copied) return copied;
    const commit = await this.clone(c);
    // Kept only when the clone is what the key says: refs that moved during it would file it
    // under the refs before.
    if (cached.holds(commit.hash)) await this.cache!.store(cached.key, c.dir, commit);
    return commit;
  }

  /**
   * The cache entry a clone's inputs and its source's current refs name, and how to tell a clone
   * made after it matches it: a local repository's refs are read from its files (and read again
   * after the clone); a remote's branch (or HEAD, with the branch it names) is asked with `git
   * ls-remote` under the run's own credentials, so a project that cannot read the repository is
   * never served its files. Null when not cached: no cache or scope, a remote clone of a given
   * commit (a full clone, with every branch), or refs that cannot be read.
   */
  private async cacheKey(c: GitCheckout): Promise<{ key: string; holds: (hash: string) => boolean } | null> {
    if (!this.cache || c.cacheScope === undefined) return null;
    const cache = this.cache;
    const inputs = JSON.stringify([c.url, c.branch, c.commitHash]);
    if (c.url.startsWith('/')) {
      const refs = localRefsFingerprint(c.url);
      if (refs === null) return null;
      return { key: cache.key(c.cacheScope, inputs, refs), holds: () => localRefsFingerprint(c.url) === refs };
    }
    if (c.commitHash) return null;
    const ref = c.branch ? `refs/heads/${c.branch}` : 'HEAD';
    let refs: string;
    try {
      refs = await this.capture({
        command: 'git',
        args: ['-c', 'protocol.ext.allow=never', 'ls-remote', '--symref', '--', c.url, ref],
        cwd: c.cwd,
        env: c.env,
      });
    } catch {
      // The clone says what is wrong.
      return null;
    }
    // "<hash>\t<ref>" for the branch, after "ref: <branch>\tHEAD" when HEAD was asked; what ssh
    // says on stderr (a host key just added) is not part of it.
    const lines = refs.split('\n').filter((l) => /^([0-9a-f]{40,64}|ref: \S+)\t\S+$/.test(l));
    const head = lines.find((l) => !l.startsWith('ref: '))?.split('\t')[0];
    if (!head) return null;
    return { key: cache.key(c.cacheScope, inputs, lines.join('\n')), holds: (hash) => hash === head };
  }

  private async clone(c: GitCheckout): Promise<{ hash: string; message: string }> {
    const base = ['-c', 'core.hooksPath=/dev/null', '-c', 'protocol.ext.allow=never', '-c', 'advice.detachedHead=false'];
    // No template folder: its sample hooks and files are never used (hooks are off) and cost
    // every task a copy and a removal.
    const clone = [...base, 'clone', '--quiet', '--template='];
    // Shallow clones only for remotes: git ignores --depth for local paths (and says so).
    if (!c.commitHash && !c.url.startsWith('/')) clone.push('--depth=1');
    // A local clone hard-links the repository's objects by default: the task (which gets the
    // checkout, chowned to it on a root server) would then own and could rewrite the repository's
    // own files. Copied, they are the task's alone.
    if (c.url.startsWith('/') || c.url.startsWith('file:')) clone.push('--no-hardlinks');
    if (c.branch) clone.push(`--branch=${c.branch}`);
    clone.push('--', c.url, c.dir);
    await this.run({ command: 'git', args: clone, cwd: c.cwd, env: c.env }, 'git clone');
    if (c.commitHash) {
      await this.run({ command: 'git', args: [...base, '-C', c.dir, 'checkout', '--quiet', '--detach', c.commitHash, '--'], cwd: c.cwd, env: c.env }, 'git checkout');
    }
    // A commit's subject never changes for its hash: a template run again on the same commit
    // reads the hash from the checkout's own files and spares a git process.
    const head = checkedOutCommit(c.dir);
    const known = head ? subjects.get(head) : undefined;
    if (head && known !== undefined) return { hash: head, message: known };
    // Hash and subject in one process: every spawn costs the machine a few ms.
    const out = await this.capture({ command: 'git', args: ['-C', c.dir, 'log', '-1', '--format=%H%n%s'], cwd: c.cwd, env: c.env });
    const [first = '', ...subject] = out.split('\n');
    const hash = first.trim();
    const message = subject.join('\n').trim();
    if (HASH.test(hash)) rememberSubject(hash, message);
    return { hash, message };
  }

  /** The commit a branch points at on the remote (`git ls-remote -- <url> <ref>`). */
  async remoteHead(url: string, branch: string | null, cwd: string, env: Record<string, string>): Promise<string | null> {
    if (branch?.startsWith('-')) throw new Error('Refusing an option-like branch name');
    const ref = branch ? `refs/heads/${branch}` : 'HEAD';
    const out = await this.capture({ command: 'git', args: ['-c', 'protocol.ext.allow=never', 'ls-remote', '--', url, ref], cwd, env });
    return out.split(/\s+/)[0] || null;
  }

  private async run(spec: ProcessSpec, what: string): Promise<void> {
    const r = await this.launcher.start(spec, (l) => this.log(l)).done;
    if (r.code !== 0) throw new Error(`${what} failed${r.spawnError ? `: ${r.spawnError}` : ` with exit code ${r.code}`}`);
  }

  private async capture(spec: ProcessSpec): Promise<string> {
    let out = '';
    const r = await this.launcher.start(spec, (l) => (out += l + '\n')).done;
    if (r.code !== 0) throw new Error(`git ${spec.args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? ''} failed`);
    return out;
  }
}
