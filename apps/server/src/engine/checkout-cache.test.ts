import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckoutCache, projectScope } from './checkout-cache.js';
import { localRefsFingerprint } from './git-refs.js';
import { Git } from './git.js';
import { createProcessLauncher, type ProcessLauncher } from './process.js';

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-checkout-cache-')));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const env = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@e',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@e',
  HOME: root,
};
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env }).toString().trim();

function commit(dir: string, files: Record<string, string>, message: string): string {
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', message);
  return git(dir, 'rev-parse', 'HEAD');
}

function repo(): string {
  const dir = fs.mkdtempSync(path.join(root, 'repo-'));
  git(dir, 'init', '-q', '-b', 'main');
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.writeFileSync(path.join(dir, 'bin/run.sh'), 'echo ok\n', { mode: 0o755 });
  // A link in the repository points wherever it likes: it must stay a link, never become the file.
  fs.symlinkSync('/etc/hostname', path.join(dir, 'outside'));
  commit(dir, { 'README.md': 'hello\n' }, 'first: the subject');
  return dir;
}

/** The real launcher, counting the processes it starts. */
function counting(): { launcher: ProcessLauncher; started: string[][] } {
  const real = createProcessLauncher({ active: false, wrap: (s) => s });
  const started: string[][] = [];
  return {
    started,
    launcher: { start: (spec, onLine, flow) => (started.push(spec.args), real.start(spec, onLine, flow)) },
  };
}

/** Every entry under `dir` with its kind, mode and content (links as their target), .git's index and reflogs aside. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      const full = path.join(dir, r);
      if (e.isDirectory()) walk(r);
      else if (e.isSymbolicLink()) out[r] = `link ${fs.readlinkSync(full)}`;
      // The index records inode and times: a copy's differ, git refreshes them. Reflogs carry the
      // second a clone was made: two clones made at once may differ there.
      else if (r !== '.git/index' && !r.startsWith('.git/logs/'))
        out[r] = `${(fs.statSync(full).mode & 0o777).toString(8)} ${fs.readFileSync(full, 'base64')}`;
    }
  };
  walk('');
  return out;
}

let seq = 0;
const fresh = () => path.join(root, `co-${++seq}`);

describe('checkout cache', () => {
  // A small entry is copied in one go, a big one entry by entry off the event loop (a bound of 0 here).
  it.each([
    ['in one go', undefined, 'cache-1'],
    ['entry by entry', 0, 'cache-1b'],
  ] as const)(
    'copies an unchanged local repository without starting git, exactly as a clone has it (%s)',
    async (_how, syncCopyMax, name) => {
      const url = repo();
      const cache = new CheckoutCache(path.join(root, name), undefined, syncCopyMax);
      const { launcher, started } = counting();
      const g = new Git(launcher, () => undefined, cache);
      const co = (dir: string) =>
        g.checkout({ url, branch: null, commitHash: null, dir, cwd: root, env, cacheScope: 'project_1' });
      const first = fresh();
      const a = await co(first);
      const processes = started.length;
      expect(processes).toBeGreaterThan(0);
      const second = fresh();
      expect(await co(second)).toEqual(a);
      expect(a.message).toBe('first: the subject');
      expect(started.length).toBe(processes);
      expect(snapshot(second)).toEqual(snapshot(first));
      expect(fs.lstatSync(path.join(second, 'outside')).isSymbolicLink()).toBe(true);
      expect(fs.statSync(path.join(second, 'bin/run.sh')).mode & 0o111).not.toBe(0);
      // git itself finds the copy clean, on its branch, with origin where the clone put it.
      expect(git(second, 'status', '--porcelain')).toBe('');
      expect(git(second, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
      expect(git(second, 'remote', 'get-url', 'origin')).toBe(url);
    },
  );

  it('clones again once the refs move, and keeps only the latest entry of the same inputs', async () => {
    const url = repo();
    const cacheDir = path.join(root, 'cache-2');
    const cache = new CheckoutCache(cacheDir);
    const { launcher, started } = counting();
    const g = new Git(launcher, () => undefined, cache);
    const co = () =>
      g.checkout({ url, branch: null, commitHash: null, dir: fresh(), cwd: root, env, cacheScope: 'project_1' });
    await co();
    const hash = commit(url, { 'README.md': 'changed\n' }, 'second');
    const before = started.length;
    expect(await co()).toEqual({ hash, message: 'second' });
    expect(started.length).toBeGreaterThan(before);
    expect(fs.readdirSync(cacheDir)).toHaveLength(1);
    // A new branch (or tag) is a new clone too: the copy would lack it.
    git(url, 'branch', 'feature');
    const again = started.length;
    const dir = fresh();
    await g.checkout({ url, branch: null, commitHash: null, dir, cwd: root, env, cacheScope: 'project_1' });
    expect(started.length).toBeGreaterThan(again);
    expect(git(dir, 'branch', '-r')).toContain('origin/feature');
  });

  it("never serves one project's checkout to another", async () => {
    const url = repo();
    const cache = new CheckoutCache(path.join(root, 'cache-3'));
    const { launcher, started } = counting();
    const g = new Git(launcher, () => undefined, cache);
    await g.checkout({ url, branch: null, commitHash: null, dir: fresh(), cwd: root, env, cacheScope: 'project_1' });
    const before = started.length;
    await g.checkout({ url, branch: null, commitHash: null, dir: fresh(), cwd: root, env, cacheScope: 'project_2' });
    expect(started.length).toBeGreaterThan(before);
  });

  it('keeps what a run changes in its copy out of the next one', async () => {
    const url = repo();
    const cache = new CheckoutCache(path.join(root, 'cache-4'));
    const g = new Git(createProcessLauncher({ active: false, wrap: (s) => s }), () => undefined, cache);
    const co = (dir: string) =>
      g.checkout({ url, branch: null, commitHash: null, dir, cwd: root, env, cacheScope: 'project_1' });
    const first = fresh();
    await co(first);
    const pristine = snapshot(first);
    // What a task could do to its checkout: rewrite a script, git's own files, plant a link.
    fs.writeFileSync(path.join(first, 'bin/run.sh'), 'echo pwned\n');
    fs.writeFileSync(path.join(first, '.git/HEAD'), 'ref: refs/heads/evil\n');
    fs.symlinkSync('/etc/shadow', path.join(first, 'planted'));
    const second = fresh();
    await co(second);
    expect(snapshot(second)).toEqual(pristine);
  });

  it('checks a remote out of the cache after asking ls-remote only, under the run’s credentials', async () => {
    const source = repo();
    const url = `file://${source}`;
    const cache = new CheckoutCache(path.join(root, 'cache-5'));
    const { launcher, started } = counting();
    const g = new Git(launcher, () => undefined, cache);
    const co = (dir: string, branch: string | null = 'main') =>
      g.checkout({ url, branch, commitHash: null, dir, cwd: root, env, cacheScope: 'project_1' });
    const first = fresh();
    const a = await co(first);
    const before = started.length;
    const second = fresh();
    expect(await co(second)).toEqual(a);
    expect(started.slice(before).map((args) => args.find((x) => x === 'ls-remote' || x === 'clone'))).toEqual([
      'ls-remote',
    ]);
    expect(snapshot(second)).toEqual(snapshot(first));
    // The remote's branch moves: cloned again.
    const hash = commit(source, { 'README.md': 'moved\n' }, 'moved');
    expect((await co(fresh())).hash).toBe(hash);
    // HEAD (no branch): its own entry, and still right.
    expect((await co(fresh(), null)).hash).toBe(hash);
    // A remote the run cannot read: no entry serves it, the clone says why.
    await expect(
      g.checkout({
        url: `file://${root}/missing`,
        branch: 'main',
        commitHash: null,
        dir: fresh(),
        cwd: root,
        env,
        cacheScope: 'project_1',
      }),
    ).rejects.toThrow(/git clone failed/);
  });

  it('serves a given commit of a local repository, and does not cache a remote one (a full clone)', async () => {
    const url = repo();
    const older = git(url, 'rev-parse', 'HEAD');
    commit(url, { 'README.md': 'newer\n' }, 'newer');
    const cache = new CheckoutCache(path.join(root, 'cache-6'));
    const { launcher, started } = counting();
    const g = new Git(launcher, () => undefined, cache);
    const co = (u: string) =>
      g.checkout({ url: u, branch: null, commitHash: older, dir: fresh(), cwd: root, env, cacheScope: 'project_1' });
    expect((await co(url)).hash).toBe(older);
    const before = started.length;
    expect((await co(url)).hash).toBe(older);
    expect(started.length).toBe(before);
    await co(`file://${url}`);
    const remote = started.length;
    expect((await co(`file://${url}`)).hash).toBe(older);
    expect(started.slice(remote).some((a) => a.includes('clone'))).toBe(true);
  });

  it('fills one entry when runs miss at once, and every run gets the full checkout', async () => {
    const url = repo();
    const cacheDir = path.join(root, 'cache-7');
    const g = new Git(
      createProcessLauncher({ active: false, wrap: (s) => s }),
      () => undefined,
      new CheckoutCache(cacheDir),
    );
    const dirs = Array.from({ length: 6 }, fresh);
    const results = await Promise.all(
      dirs.map((dir) => g.checkout({ url, branch: null, commitHash: null, dir, cwd: root, env, cacheScope: 'p' })),
    );
    expect(new Set(results.map((r) => r.hash)).size).toBe(1);
    const first = snapshot(dirs[0]!);
    for (const d of dirs) expect(snapshot(d)).toEqual(first);
    expect(fs.readdirSync(cacheDir)).toHaveLength(1);
  });

  it('drops the least recently used entry past its bound, and clones when an entry is gone or broken', async () => {
    const url = repo();
    const cacheDir = path.join(root, 'cache-8');
    const cache = new CheckoutCache(cacheDir, 2);
    const { launcher, started } = counting();
    const g = new Git(launcher, () => undefined, cache);
    const co = (scope: string, dir = fresh()) =>
      g.checkout({ url, branch: null, commitHash: null, dir, cwd: root, env, cacheScope: scope });
    await co('a');
    await new Promise((r) => setTimeout(r, 20));
    await co('b');
    await new Promise((r) => setTimeout(r, 20));
    await co('a'); // used again: b is now the oldest
    await co('c');
    expect(fs.readdirSync(cacheDir)).toHaveLength(2);
    let before = started.length;
    await co('a');
    expect(started.length).toBe(before);
    await co('b');
    expect(started.length).toBeGreaterThan(before);
    // An entry whose tree went away (removed meanwhile): the run clones, no half copy in its way.
    for (const name of fs.readdirSync(cacheDir)) fs.rmSync(path.join(cacheDir, name, 'tree'), { recursive: true });
    before = started.length;
    const dir = fresh();
    await co('b', dir);
    expect(started.length).toBeGreaterThan(before);
    expect(fs.readFileSync(path.join(dir, 'bin/run.sh'), 'utf8')).toBe('echo ok\n');
  });

  it('keeps no clone whose refs moved while it was made (it would be filed under the refs before)', async () => {
    for (const remote of [false, true]) {
      const source = repo();
      const url = remote ? `file://${source}` : source;
      const cacheDir = path.join(root, `cache-moved-${remote}`);
      const real = createProcessLauncher({ active: false, wrap: (s) => s });
      let moved = '';
      // A commit lands between the refs being read and the clone.
      const launcher: ProcessLauncher = {
        start: (spec, onLine, flow) => {
          if (spec.args.includes('clone') && !moved) moved = commit(source, { 'README.md': 'during\n' }, 'during');
          return real.start(spec, onLine, flow);
        },
      };
      const g = new Git(launcher, () => undefined, new CheckoutCache(cacheDir));
      const co = () =>
        g.checkout({ url, branch: 'main', commitHash: null, dir: fresh(), cwd: root, env, cacheScope: 'p' });
      expect((await co()).hash).toBe(moved);
      expect(fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).filter((n) => !n.startsWith('.')) : []).toEqual([]);
      // Read again, the refs name the new commit: that clone is kept.
      expect((await co()).hash).toBe(moved);
      expect(fs.readdirSync(cacheDir).filter((n) => !n.startsWith('.'))).toHaveLength(1);
    }
  });

  it('keys a remote by its refs alone, not by what ssh says on the side', async () => {
    const source = repo();
    const real = createProcessLauncher({ active: false, wrap: (s) => s });
    const started: string[] = [];
    let n = 0;
    const launcher: ProcessLauncher = {
      start: (spec, onLine, flow) => {
        started.push(spec.args.includes('ls-remote') ? 'ls-remote' : spec.args.includes('clone') ? 'clone' : 'other');
        // As ssh tells a host key it just added (or a server's banner): different every time.
        if (spec.args.includes('ls-remote'))
          onLine(`Warning: Permanently added 'host-${++n}' (ED25519) to the list of known hosts.`);
        return real.start(spec, onLine, flow);
      },
    };
    const g = new Git(launcher, () => undefined, new CheckoutCache(path.join(root, 'cache-ssh')));
    const co = () =>
      g.checkout({
        url: `file://${source}`,
        branch: null,
        commitHash: null,
        dir: fresh(),
        cwd: root,
        env,
        cacheScope: 'p',
      });
    await co();
    started.length = 0;
    await co();
    expect(started).toEqual(['ls-remote']);
  });

  it('is none for a node set to keep 0, and what an earlier start kept goes', async () => {
    const dir = path.join(root, 'cache-off');
    fs.mkdirSync(path.join(dir, 'entry', 'tree'), { recursive: true });
    expect(CheckoutCache.forNode(dir, 0)).toBeUndefined();
    for (let i = 0; i < 100 && fs.existsSync(dir); i++) await new Promise((r) => setTimeout(r, 20));
    expect(fs.existsSync(dir)).toBe(false);
    expect(CheckoutCache.forNode(dir, 3)).toBeInstanceOf(CheckoutCache);
  });

  it('clears every entry on demand (a runner told to clear its cache), and clones after', async () => {
    const url = repo();
    const cacheDir = path.join(root, 'cache-clear');
    const cache = new CheckoutCache(cacheDir);
    const { launcher, started } = counting();
    const g = new Git(launcher, () => undefined, cache);
    for (const scope of ['a', 'b'])
      await g.checkout({ url, branch: null, commitHash: null, dir: fresh(), cwd: root, env, cacheScope: scope });
    expect(await cache.clear()).toBe(2);
    expect(fs.readdirSync(cacheDir)).toEqual([]);
    const before = started.length;
    await g.checkout({ url, branch: null, commitHash: null, dir: fresh(), cwd: root, env, cacheScope: 'a' });
    expect(started.length).toBeGreaterThan(before);
    expect(await new CheckoutCache(path.join(root, 'never-made')).clear()).toBe(0);
  });

  it('prunes the entries of projects that no longer exist, and nothing else', async () => {
    const url = repo();
    const cacheDir = path.join(root, 'cache-prune');
    const cache = new CheckoutCache(cacheDir);
    const g = new Git(createProcessLauncher({ active: false, wrap: (s) => s }), () => undefined, cache);
    for (const scope of [projectScope(1), projectScope(2), projectScope(12), 'runner_scope'])
      await g.checkout({ url, branch: null, commitHash: null, dir: fresh(), cwd: root, env, cacheScope: scope });
    const scopes = () =>
      fs
        .readdirSync(cacheDir)
        .map((n) => n.split('-')[0])
        .sort();
    expect(scopes()).toEqual(['project_1', 'project_12', 'project_2', 'runner_scope']);
    // Project 1 still exists; 2 and 12 were deleted (1 is no prefix of 12).
    expect(await cache.pruneProjects(new Set([1]))).toBe(2);
    expect(scopes()).toEqual(['project_1', 'runner_scope']);
    expect(await cache.pruneProjects(new Set([1]))).toBe(0);
    expect(await new CheckoutCache(path.join(root, 'never-made-2')).pruneProjects(new Set())).toBe(0);
  });

  it('uses no cache without a scope', async () => {
    const url = repo();
    const cacheDir = path.join(root, 'cache-9');
    const g = new Git(
      createProcessLauncher({ active: false, wrap: (s) => s }),
      () => undefined,
      new CheckoutCache(cacheDir),
    );
    await g.checkout({ url, branch: null, commitHash: null, dir: fresh(), cwd: root, env });
    expect(fs.existsSync(cacheDir)).toBe(false);
  });
});

describe('local refs fingerprint', () => {
  it('reads a work tree and a bare repository, and tells nothing through links, worktrees or reftable', () => {
    const url = repo();
    const a = localRefsFingerprint(url);
    expect(a).toContain('refs/heads/main');
    git(url, 'tag', 'v1');
    expect(localRefsFingerprint(url)).not.toBe(a);
    git(url, 'pack-refs', '--all', '--prune');
    expect(localRefsFingerprint(url)).toContain('packed-refs');
    const bare = path.join(root, `bare-${++seq}`);
    git(root, 'clone', '-q', '--bare', url, bare);
    expect(localRefsFingerprint(bare)).toContain('HEAD ref: refs/heads/main');
    // A linked worktree's .git is a file naming the real git folder.
    const linked = path.join(root, `linked-${++seq}`);
    git(url, 'worktree', 'add', '-q', linked);
    expect(localRefsFingerprint(linked)).toBeNull();
    // A ref that is a link.
    fs.symlinkSync('/etc/hostname', path.join(url, '.git/refs/heads/planted'));
    expect(localRefsFingerprint(url)).toBeNull();
    fs.rmSync(path.join(url, '.git/refs/heads/planted'));
    fs.mkdirSync(path.join(url, '.git/reftable'));
    expect(localRefsFingerprint(url)).toBeNull();
    expect(localRefsFingerprint(path.join(root, 'nothing-here'))).toBeNull();
  });
});
