import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../test/tasks.js';

describe.each(engines)('cached checkouts in real runs ($name)', (engine) => {
  const t = useTestApp(engine);

  it('gives every run the repository as committed, whatever an earlier run did to its copy', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const cacheDir = path.join(t().config.dataDir, 'checkouts');
    // The script rewrites itself, git's HEAD and config, and plants a link, then looks for the cache
    // (in braces: bash reads all of it before it is rewritten).
    const repo = gitRepo({
      'run.sh': [
        '{',
        'echo "version=$(cat version.txt)"',
        'echo "head=$(git rev-parse HEAD)"',
        'echo "echo pwned" > run.sh; echo 2 > version.txt',
        'printf "ref: refs/heads/evil\\n" > .git/HEAD',
        'printf "[core]\\n\\thooksPath = /tmp\\n" >> .git/config',
        'ln -s /etc/hostname planted',
        `if [ -e ${JSON.stringify(cacheDir)} ]; then echo "cache=seen"; else echo "cache=hidden"; fi`,
        'exit 0',
        '}',
        '',
      ].join('\n'),
      'version.txt': '1\n',
    });
    const s = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'run.sh' });
    const run = async () => {
      const id = await runTask(admin, p, { template_id: s.templateId });
      expect((await waitForTask(admin, p, id)).status).toBe('success');
      return { id, log: await taskLog(admin, p, id) };
    };
    const first = await run();
    const firstHash = (await admin.get(`/api/project/${p}/tasks/${first.id}`)).json().commit_hash;
    expect(first.log).toContain('version=1');
    expect(first.log, first.log.join('\n')).toContain('cache=hidden');
    // The cache is filled (and kept in the data folder, which the task could not see).
    expect(fs.readdirSync(cacheDir).filter((n) => !n.startsWith('.'))).toHaveLength(1);
    const second = await run();
    expect(second.log).toContain('version=1');
    expect(second.log).toContain(`head=${firstHash}`);
    expect(second.log.some((l) => l.includes('pwned'))).toBe(false);
    expect((await admin.get(`/api/project/${p}/tasks/${second.id}`)).json()).toMatchObject({
      commit_hash: firstHash,
      commit_message: 'initial',
    });
    // A new commit reaches the next run.
    const hash = commitFiles(repo, { 'version.txt': '3\n' }, [], 'three');
    const third = await run();
    expect(third.log).toContain('version=3');
    expect(third.log).toContain(`head=${hash}`);
    expect((await admin.get(`/api/project/${p}/tasks/${third.id}`)).json()).toMatchObject({
      commit_hash: hash,
      commit_message: 'three',
    });
  });
});

describe('runs with the checkout cache off (GANTRY_CHECKOUT_CACHE_ENTRIES=0)', () => {
  const t = useTestApp(engines[0]!, { GANTRY_CHECKOUT_CACHE_ENTRIES: '0' });

  it('clones every run and keeps nothing', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const repo = gitRepo({ 'run.sh': 'echo "version=$(cat version.txt)"\n', 'version.txt': '1\n' });
    const s = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'run.sh' });
    for (const version of ['1', '2']) {
      if (version === '2') commitFiles(repo, { 'version.txt': '2\n' });
      const id = await runTask(admin, p, { template_id: s.templateId });
      expect((await waitForTask(admin, p, id)).status).toBe('success');
      expect(await taskLog(admin, p, id)).toContain(`version=${version}`);
    }
    expect(fs.existsSync(path.join(t().config.dataDir, 'checkouts'))).toBe(false);
  });
});
