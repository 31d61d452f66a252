import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { VERSION, gitCommit, releaseVersion } from './version.js';

const SHA1 = 'abc1234def5678abc1234def5678abc1234def56';
const SHA2 = '0123456789abcdef0123456789abcdef01234567';

const temps: string[] = [];
afterAll(() => {
  for (const d of temps) fs.rmSync(d, { recursive: true, force: true });
});

/** A package root with the given files (paths relative to it). */
function root(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-version-'));
  temps.push(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ version: '1.2.3' }));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe('release version', () => {
  it('is the package version with the commit of a loose ref, a packed ref or a detached HEAD', () => {
    expect(releaseVersion(root({ '.git/HEAD': 'ref: refs/heads/main\n', '.git/refs/heads/main': `${SHA1}\n` }))).toBe(
      '1.2.3-abc1234',
    );
    const packed = root({
      '.git/HEAD': 'ref: refs/heads/release\n',
      '.git/packed-refs': `# pack-refs with: peeled fully-peeled sorted\n${SHA1} refs/heads/main\n${SHA2} refs/heads/release\n`,
    });
    expect(releaseVersion(packed)).toBe('1.2.3-0123456');
    expect(releaseVersion(root({ '.git/HEAD': `${SHA2}\n` }))).toBe('1.2.3-0123456');
  });

  it('follows a worktree .git file to its folder and the common folder', () => {
    const main = root({ '.git/refs/heads/feature': `${SHA2}\n` });
    const wt = root({});
    const wtGit = path.join(main, '.git', 'worktrees', 'wt');
    fs.mkdirSync(wtGit, { recursive: true });
    fs.writeFileSync(path.join(wtGit, 'HEAD'), 'ref: refs/heads/feature\n');
    fs.writeFileSync(path.join(wtGit, 'commondir'), '../..\n');
    fs.writeFileSync(path.join(wt, '.git'), `gitdir: ${wtGit}\n`);
    expect(gitCommit(wt)).toBe(SHA2);
  });

  it('is the package version alone without git, on an unborn branch or with odd files', () => {
    expect(releaseVersion(root({}))).toBe('1.2.3');
    expect(releaseVersion(root({ '.git/HEAD': 'ref: refs/heads/main\n' }))).toBe('1.2.3');
    expect(releaseVersion(root({ '.git/HEAD': 'ref: refs/heads/../../../etc/x\n' }))).toBe('1.2.3');
    expect(
      releaseVersion(root({ '.git/HEAD': 'ref: refs/heads/main\n', '.git/refs/heads/main': 'not a commit\n' })),
    ).toBe('1.2.3');
    expect(releaseVersion(root({ '.git': 'nonsense' }))).toBe('1.2.3');
  });

  it("names this checkout's commit, as git rev-parse does", () => {
    const repo = fileURLToPath(new URL('../../../', import.meta.url));
    const version = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')).version as string;
    let head: string | null = null;
    try {
      head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
    } catch {
      // Not a checkout (an unpacked release): the package version alone.
    }
    expect(VERSION).toBe(head ? `${version}-${head.slice(0, 7)}` : version);
  });
});
