import { describe, expect, it } from 'vitest';
import { inventoryInputSchema } from './inventories.js';
import { repositoryInputSchema } from './repositories.js';
import { templateInputSchema } from './templates.js';

const problems = (r: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  (r.error?.issues ?? []).map((i) => [i.path.join('.'), i.message]).sort();

describe('forms learn every problem in one pass', () => {
  it('repository: the branch rule runs although the name and key are missing', () => {
    expect(problems(repositoryInputSchema.safeParse({ name: '', git_url: 'git@github.com:org/app.git', git_branch: '' }))).toEqual(
      [
        ['name', 'Name is required'],
        ['ssh_key_id', 'Access key is required'],
        ['git_branch', 'Branch is required'],
      ].sort(),
    );
    // A local path still needs no branch; a URL of the wrong type skips the branch rule.
    expect(problems(repositoryInputSchema.safeParse({ name: '', git_url: '/srv/git/app', git_branch: '', ssh_key_id: 1 }))).toEqual([['name', 'Name is required']]);
    expect(problems(repositoryInputSchema.safeParse({ name: 'a', git_url: 5, ssh_key_id: 1 })).map(([p]) => p)).toEqual(['git_url']);
  });

  it('inventory: the path rule runs although the name is missing', () => {
    expect(problems(inventoryInputSchema.safeParse({ name: '', type: 'file', inventory: '' }))).toEqual(
      [
        ['name', 'Name is required'],
        ['inventory', 'Path is required'],
      ].sort(),
    );
    expect(problems(inventoryInputSchema.safeParse({ name: '', type: 'terraform-workspace' }))).toEqual(
      [
        ['inventory', 'Workspace name is required'],
        ['name', 'Name is required'],
      ].sort(),
    );
  });

  it('a script template asks for its script, an Ansible one for its playbook', () => {
    const base = { name: 'x', repository_id: 1, environment_id: 1, inventory_id: 1 };
    for (const app of ['bash', 'python', 'powershell']) {
      expect(problems(templateInputSchema.safeParse({ ...base, app }))).toEqual([['playbook', 'Script filename is required']]);
    }
    expect(problems(templateInputSchema.safeParse({ ...base, app: 'ansible' }))).toEqual([['playbook', 'Playbook filename is required']]);
  });
});
