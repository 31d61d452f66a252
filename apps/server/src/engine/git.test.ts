import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkedOutCommit } from './git-head.js';
import { Git } from './git.js';
import { createProcessLauncher, type ProcessLauncher } from './process.js';

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-git-test-')));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e', HOME: root };

function repoWith(subjects: string[]): { dir: string; hashes: string[] } {
  const dir = fs.mkdtempSync(path.join(root, 'repo-'));
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env });
  const hashes = subjects.map((s, i) => {
    fs.writeFileSync(path.join(dir, 'f.txt'), String(i));
    execFileSync('git', ['add', '-A'], { cwd: dir, env });
    execFileSync('git', ['commit', '-qm', s], { cwd: dir, env });
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, env }).toString().trim();
  });
  return { dir, hashes };
}

/** The real launcher, counting the processes it starts. */
function counting(): { launcher: ProcessLauncher; started: string[][] } {
  const real = createProcessLauncher({ active: false, wrap: (s) => s });
  const started: string[][] = [];
  return { started, launcher: { start: (spec, onLine, flow) => (started.push(spec.args), real.start(spec, onLine, flow)) } };
}

describe('git checkout', () => {
  it('tells the commit and its subject, and asks git log only the first time a commit is seen', async () => {
    const { dir: url, hashes } = repoWith(['first', 'second: the subject']);
    const { launcher, started } = counting();
    const git = new Git(launcher, () => undefined);
    const co = (name: string, commitHash: string | null = null) =>
      git.checkout({ url, branch: null, commitHash, dir: path.join(root, name), cwd: root, env });
    expect(await co('a')).toEqual({ hash: hashes[1], message: 'second: the subject' });
    expect(started.filter((a) => a.includes('log'))).toHaveLength(1);
    expect(await co('b')).toEqual({ hash: hashes[1], message: 'second: the subject' });
    expect(started.filter((a) => a.includes('log'))).toHaveLength(1);
    // A detached older commit: its own hash and subject, not the branch's.
    expect(await co('c', hashes[0]!)).toEqual({ hash: hashes[0], message: 'first' });
    expect(await co('d', hashes[0]!)).toEqual({ hash: hashes[0], message: 'first' });
    expect(started.filter((a) => a.includes('log'))).toHaveLength(2);
  });

  it('reads HEAD through a packed ref, and never through a link', () => {
    const { dir, hashes } = repoWith(['one']);
    expect(checkedOutCommit(dir)).toBe(hashes[0]);
    execFileSync('git', ['pack-refs', '--all', '--prune'], { cwd: dir, env });
    expect(fs.existsSync(path.join(dir, '.git/refs/heads/main'))).toBe(false);
    expect(checkedOutCommit(dir)).toBe(hashes[0]);
    // A ref file replaced by a link (a task could plant one): not followed, git is asked instead.
    const outside = path.join(root, 'planted');
    fs.writeFileSync(outside, `${'a'.repeat(40)}\n`);
    fs.symlinkSync(outside, path.join(dir, '.git/refs/heads/main'));
    expect(checkedOutCommit(dir)).toBeNull();
    fs.writeFileSync(path.join(dir, '.git/HEAD'), 'ref: refs/heads/../../../etc/passwd\n');
    expect(checkedOutCommit(dir)).toBeNull();
  });
});
