import { describe, expect, it } from 'vitest';
import { isValidBranch } from './branches.js';
import { repositoryInputSchema } from './repositories.js';
import { templateInputSchema } from './templates.js';

describe('branch names', () => {
  it('refuses what git check-ref-format --branch refuses, and anything outside a plain character set', () => {
    for (const name of [
      'a..b',
      '../x',
      '@{-1}',
      '@',
      'main;id',
      '-x',
      '--upload-pack=evil',
      '/main',
      'main/',
      'main.',
      'a//b',
      '.hidden',
      'a/.b',
      'x.lock',
      'a/b.lock/c',
      'HEAD',
      'ma in',
      'ma\nin',
      'a~1',
      'a^',
      'a:b',
      'a?',
      'a*',
      'a[b',
      'a\\b',
      'é',
      '',
      'x'.repeat(256),
    ])
      expect(isValidBranch(name), name).toBe(false);
  });

  it('takes ordinary branch names', () => {
    for (const name of ['main', 'feature/x-1.2', 'release/2024.01', 'user+topic', 'a_b', 'v1.0.0-rc.1'])
      expect(isValidBranch(name), name).toBe(true);
  });

  it('is the rule of templates and repositories', () => {
    const tpl = { name: 't', app: 'bash', playbook: 'a.sh', repository_id: 1, environment_id: 1 };
    expect(templateInputSchema.safeParse({ ...tpl, git_branch: 'a..b' }).error?.issues[0]?.message).toBe(
      'Incorrect branch',
    );
    expect(templateInputSchema.safeParse({ ...tpl, git_branch: 'feature/x-1.2' }).success).toBe(true);
    const repo = { name: 'r', git_url: 'git@example.com:o/r.git', ssh_key_id: 1 };
    expect(repositoryInputSchema.safeParse({ ...repo, git_branch: '@{-1}' }).error?.issues[0]?.message).toBe(
      'Incorrect branch',
    );
    expect(repositoryInputSchema.safeParse({ ...repo, git_branch: 'feature/x-1.2' }).success).toBe(true);
  });

  it('refuses survey variables that task input may not set', () => {
    const tpl = { name: 't', app: 'bash', playbook: 'a.sh', repository_id: 1, environment_id: 1 };
    const survey = (name: string) => templateInputSchema.safeParse({ ...tpl, survey_vars: [{ name, title: 'T' }] });
    expect(survey('ansible_become_password').error?.issues[0]?.message).toBe(
      'Variable ansible_become_password is reserved',
    );
    expect(survey('LD_PRELOAD').error?.issues[0]?.message).toBe('Variable LD_PRELOAD is reserved');
    expect(survey('version').success).toBe(true);
  });
});
