import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  gitUrlAccess,
  LOCAL_INVENTORY_REFUSED,
  LOCAL_REPOSITORY_REFUSED,
  LocalPathPolicy,
  REMOTE_HELPER_REFUSED,
} from './local-paths.js';

describe('gitUrlAccess (git clone rules)', () => {
  it.each([
    ['/srv/repo', { kind: 'local', path: '/srv/repo' }],
    ['file:///srv/repo', { kind: 'local', path: '/srv/repo' }],
    ['FILE:///srv/repo', { kind: 'local', path: '/srv/repo' }],
    ['file://localhost/srv/repo', { kind: 'local', path: '/srv/repo' }],
    ['file:///srv/%72epo', { kind: 'local', path: '/srv/repo' }],
    ['file://host/srv/repo', { kind: 'local', path: null }],
    ['file:///srv/%zz', { kind: 'local', path: null }],
    ['./repo', { kind: 'local', path: null }],
    ['../repo', { kind: 'local', path: null }],
    ['repo', { kind: 'local', path: null }],
    ['./a:b', { kind: 'local', path: null }],
    ['/srv/a:b', { kind: 'local', path: '/srv/a:b' }],
    ['ext::sh -c id', { kind: 'helper' }],
    ['fd::3', { kind: 'helper' }],
    ['https://example.com/o/r.git', { kind: 'remote' }],
    ['ssh://git@example.com/o/r.git', { kind: 'remote' }],
    ['git://example.com/o/r.git', { kind: 'remote' }],
    ['git@example.com:o/r.git', { kind: 'remote' }],
    ['example.com:o/r.git', { kind: 'remote' }],
  ])('%s', (url, expected) => {
    expect(gitUrlAccess(url)).toEqual(expected);
  });
});

describe('LocalPathPolicy', () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-lp-')));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const allowed = path.join(root, 'repos');
  const dataDir = path.join(allowed, 'data');
  const taskDir = path.join(allowed, 'data-tasks');
  const elsewhere = path.join(root, 'elsewhere');
  for (const d of [
    allowed,
    dataDir,
    taskDir,
    elsewhere,
    path.join(dataDir, 'demo', 'project_3'),
    path.join(allowed, 'app'),
  ])
    fs.mkdirSync(d, { recursive: true });
  fs.symlinkSync(elsewhere, path.join(allowed, 'out'));
  fs.symlinkSync(taskDir, path.join(allowed, 'tasks'));
  fs.symlinkSync(path.join(allowed, 'app'), path.join(elsewhere, 'in'));

  const none = new LocalPathPolicy({ allowed: [], dataDir, taskDir });
  const some = new LocalPathPolicy({ allowed: [allowed], dataDir, taskDir });

  it('lets remote URLs through and refuses remote helpers whatever is allowed', () => {
    expect(none.repositoryProblem('git@example.com:o/r.git')).toBeNull();
    expect(some.repositoryProblem('ext::sh -c id')).toBe(REMOTE_HELPER_REFUSED);
  });

  it('refuses every local path when nothing is allowed, except the demo repositories themselves', () => {
    for (const url of [
      path.join(allowed, 'app'),
      `file://${path.join(allowed, 'app')}`,
      './app',
      path.join(taskDir, 'task_1', 'repository'),
    ]) {
      expect(none.repositoryProblem(url), url).toBe(LOCAL_REPOSITORY_REFUSED);
    }
    expect(none.repositoryProblem(path.join(dataDir, 'demo', 'project_3'))).toBeNull();
    expect(none.repositoryProblem(path.join(dataDir, 'demo'))).toBe(LOCAL_REPOSITORY_REFUSED);
    expect(none.repositoryProblem(path.join(dataDir, 'demo', 'project_3', '.git'))).toBe(LOCAL_REPOSITORY_REFUSED);
  });

  it('compares real paths: below the folder only where the path really leads, never the data or task folder', () => {
    expect(some.repositoryProblem(path.join(allowed, 'app'))).toBeNull();
    expect(some.repositoryProblem(`file://${allowed}/app`)).toBeNull();
    // Missing folders are judged by where their existing part really is.
    expect(some.repositoryProblem(path.join(allowed, 'not-yet', 'repo'))).toBeNull();
    expect(some.repositoryProblem(path.join(elsewhere, 'in'))).toBeNull();
    for (const url of [
      path.join(allowed, 'out'),
      path.join(allowed, 'out', 'missing'),
      path.join(allowed, 'app', '..', '..', 'elsewhere'),
      path.join(allowed, 'tasks', 'task_1', 'repository'),
      `${allowed}/not-yet/../../elsewhere`,
      // Text says below the folder; the link says otherwise (git follows the link, then `..`).
      `${allowed}/out/../elsewhere`,
      dataDir,
      path.join(dataDir, 'known_hosts'),
      taskDir,
      `${allowed}2`,
    ]) {
      expect(some.repositoryProblem(url), url).toBe(LOCAL_REPOSITORY_REFUSED);
    }
  });

  it('judges absolute inventory files the same way and leaves relative ones to the checkout', () => {
    expect(none.inventoryProblem('inventories/prod.ini')).toBeNull();
    expect(none.inventoryProblem('/etc/ansible/hosts')).toBe(LOCAL_INVENTORY_REFUSED);
    expect(some.inventoryProblem(path.join(allowed, 'app', 'hosts.ini'))).toBeNull();
    expect(some.inventoryProblem(path.join(allowed, 'out', 'hosts.ini'))).toBe(LOCAL_INVENTORY_REFUSED);
    expect(some.inventoryProblem(path.join(dataDir, 'gantry.sqlite'))).toBe(LOCAL_INVENTORY_REFUSED);
    // Nor a folder holding them: ansible reads an inventory folder whole.
    expect(some.inventoryProblem(allowed)).toBe(LOCAL_INVENTORY_REFUSED);
    expect(some.inventoryProblem(path.join(allowed, 'app'))).toBeNull();
    // The demo exception is for its repository only.
    expect(none.inventoryProblem(path.join(dataDir, 'demo', 'project_3'))).toBe(LOCAL_INVENTORY_REFUSED);
  });
});
