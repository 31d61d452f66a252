import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config.js';
import { bwrapArgv, TaskSandbox, type BwrapProbe } from './sandbox.js';

const works = (): BwrapProbe => ({ ok: true, bwrap: '/usr/bin/bwrap', version: 'bubblewrap 0.8.0' });
const missing = (): BwrapProbe => ({ ok: false, reason: 'bubblewrap (bwrap) is not installed' });

// Hidden folders must lie outside /tmp (the sandbox's /tmp is private anyway): /var/tmp is not.
const outside = fs.realpathSync(fs.mkdtempSync(path.join('/var/tmp', 'gantry-sandbox-')));
const inTmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-sandbox-')));
afterAll(() => {
  fs.rmSync(outside, { recursive: true, force: true });
  fs.rmSync(inTmp, { recursive: true, force: true });
});

describe('bwrapArgv', () => {
  it('puts the system read-only, hides before it binds, and runs the command after --', () => {
    const argv = bwrapArgv(
      {
        hiddenDirs: ['/srv/data', '/srv/data-tasks'],
        hiddenFiles: ['/etc/runner.pem'],
        readOnly: [['/tmp/real-bin', '/tmp/bin']],
        writable: ['/srv/data-tasks/task_1', '/srv/data/known_hosts/project_1'],
        cwd: '/srv/data-tasks/task_1/repository',
      },
      '/bin/bash',
      ['run.sh', '--', '-x'],
    );
    // prettier-ignore
    expect(argv).toEqual([
      '--ro-bind', '/', '/',
      '--dev', '/dev',
      '--perms', '1777', '--tmpfs', '/dev/shm',
      '--proc', '/proc',
      '--perms', '1777', '--tmpfs', '/tmp',
      '--unshare-pid',
      '--die-with-parent',
      // Its own session: no terminal a task could push keystrokes into.
      '--new-session',
      // No capability at all, whoever runs the server.
      '--cap-drop', 'ALL',
      '--tmpfs', '/srv/data',
      '--tmpfs', '/srv/data-tasks',
      '--ro-bind', '/dev/null', '/etc/runner.pem',
      '--ro-bind', '/tmp/real-bin', '/tmp/bin',
      '--bind', '/srv/data-tasks/task_1', '/srv/data-tasks/task_1',
      '--bind', '/srv/data/known_hosts/project_1', '/srv/data/known_hosts/project_1',
      '--chdir', '/srv/data-tasks/task_1/repository',
      '--', '/bin/bash', 'run.sh', '--', '-x',
    ]);
    expect(argv).not.toContain('--unshare-net');
  });

  it('as root, keeps only what setpriv needs to become the task user, who then has nothing', () => {
    const argv = bwrapArgv({ hiddenDirs: [], hiddenFiles: [], readOnly: [], writable: ['/w'], cwd: '/w' }, '/bin/sh', ['-c', 'id'], {
      dropTo: { uid: 65534, gid: 65534, setpriv: '/usr/bin/setpriv' },
      unshareNet: true,
      waitForNetwork: true,
    });
    const caps = argv.flatMap((x, i) => (x === '--cap-add' ? [argv[i + 1]] : []));
    expect(caps.sort()).toEqual(['CAP_DAC_OVERRIDE', 'CAP_SETGID', 'CAP_SETPCAP', 'CAP_SETUID']);
    expect(argv.indexOf('--cap-drop')).toBeLessThan(argv.indexOf('--cap-add'));
    expect(argv).toContain('--unshare-net');
    expect(argv.slice(argv.indexOf('--info-fd'), argv.indexOf('--info-fd') + 4)).toEqual(['--info-fd', '3', '--block-fd', '4']);
    // prettier-ignore
    expect(argv.slice(argv.indexOf('--chdir'))).toEqual([
      '--chdir', '/w', '--',
      '/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--',
      '/bin/sh', '-c', 'id',
    ]);
  });
});

describe('TaskSandbox', () => {
  const spec = (command: string, cwd: string) => ({
    command,
    args: ['a b'],
    cwd,
    env: { PATH: '/usr/bin:/bin', HOME: cwd },
  });

  it('auto uses bwrap when the probe works', () => {
    const s = new TaskSandbox({ requested: 'auto', hide: [], systemPath: '/usr/bin:/bin', probe: works });
    expect(s.status()).toMatchObject({ mode: 'bwrap', requested: 'auto', detail: 'bubblewrap 0.8.0 (/usr/bin/bwrap)', network_requested: 'isolated' });
    expect(s.active).toBe(true);
    expect(s.warning).toBeNull();
    expect(s.check().mode).toBe('bwrap');
  });

  it('auto falls back with a warning; bwrap refuses to start; off never probes', () => {
    const auto = new TaskSandbox({ requested: 'auto', hide: [], systemPath: '/usr/bin', probe: missing });
    expect(auto.status()).toMatchObject({ mode: 'off', requested: 'auto', detail: 'bubblewrap (bwrap) is not installed' });
    expect(auto.warning).toMatch(/^Tasks are not sandboxed: bubblewrap \(bwrap\) is not installed; /);
    expect(auto.check().mode).toBe('off');
    const spec1 = spec('bash', inTmp);
    expect(auto.wrap(spec1, [inTmp])).toBe(spec1);

    const required = new TaskSandbox({ requested: 'bwrap', hide: [], systemPath: '/usr/bin', probe: missing });
    expect(() => required.check()).toThrow(ConfigError);
    expect(() => required.check()).toThrow(/GANTRY_TASK_SANDBOX is bwrap but bubblewrap \(bwrap\) is not installed/);

    let probed = false;
    const off = new TaskSandbox({
      requested: 'off',
      hide: [],
      systemPath: '/usr/bin',
      probe: () => ((probed = true), works()),
    });
    expect(off.status()).toMatchObject({ mode: 'off', requested: 'off', detail: 'GANTRY_TASK_SANDBOX is off' });
    expect(off.active).toBe(false);
    expect(probed).toBe(false);
  });

  it('hides the listed folders (outermost only), key files and ~/.ssh, and binds the workspace back', () => {
    const data = path.join(outside, 'data');
    const tasks = path.join(data, 'tasks');
    const ws = path.join(tasks, 'task_7');
    fs.mkdirSync(path.join(ws, 'repository'), { recursive: true });
    const keyFile = path.join(outside, 'runner.pem');
    fs.writeFileSync(keyFile, 'key');
    const s = new TaskSandbox({
      requested: 'auto',
      // The layout alone (GANTRY_TASK_NETWORK=isolated puts unshare around bwrap: see the int tests).
      network: 'host',
      hide: [tasks, data, keyFile, path.join(outside, 'not-there'), path.join(inTmp, 'x')],
      systemPath: '/usr/bin:/bin',
      probe: works,
    });
    const wrapped = s.wrap(spec('bash', path.join(ws, 'repository')), [ws]);
    expect(wrapped.command).toBe('/usr/bin/bwrap');
    const a = wrapped.args;
    const pairs = (flag: string) => a.flatMap((x, i) => (x === flag ? [a[i + 1]] : []));
    expect(pairs('--tmpfs')).toEqual(expect.arrayContaining(['/tmp', data]));
    expect(pairs('--tmpfs')).not.toContain(tasks);
    expect(pairs('--tmpfs').some((d) => d?.startsWith(inTmp))).toBe(false);
    const ssh = path.join(os.userInfo().homedir, '.ssh');
    if (fs.existsSync(ssh)) expect(pairs('--tmpfs')).toContain(fs.realpathSync(ssh));
    expect(a.slice(a.indexOf(keyFile) - 2, a.indexOf(keyFile) + 1)).toEqual(['--ro-bind', '/dev/null', keyFile]);
    expect(pairs('--bind')).toEqual([ws]);
    expect(a.indexOf('--bind')).toBeGreaterThan(a.lastIndexOf('--tmpfs'));
    expect(a.slice(a.indexOf('--chdir'))).toEqual([
      '--chdir',
      path.join(ws, 'repository'),
      '--',
      fs.realpathSync('/usr/bin/bash'),
      'a b',
    ]);
    // The environment is the task's own, untouched.
    expect(wrapped.env).toEqual({ PATH: '/usr/bin:/bin', HOME: path.join(ws, 'repository') });
  });

  it('shows PATH folders and a program under /tmp read-only; a missing program fails like a spawn', () => {
    const bin = path.join(inTmp, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    const s = new TaskSandbox({ requested: 'auto', network: 'host', hide: [], systemPath: '/usr/bin', probe: works });
    fs.symlinkSync('/bin/sh', path.join(bin, 'linked'));
    const wrapped = s.wrap({ command: 'tool', args: [], cwd: inTmp, env: { PATH: `${bin}:/usr/bin` } }, []);
    const a = wrapped.args;
    expect(a.slice(a.indexOf(bin) - 1, a.indexOf(bin) + 2)).toEqual(['--ro-bind', bin, bin]);
    expect(a.filter((x) => x === '--ro-bind')).toHaveLength(2);
    expect(a.slice(a.indexOf('--') + 1)).toEqual([path.join(bin, 'tool')]);
    // A program under /tmp but outside PATH, reached through a symlink, is shown at the path it is run by.
    const app = s.wrap({ command: path.join(bin, 'linked'), args: [], cwd: inTmp, env: { PATH: '/usr/bin' } }, []).args;
    expect(app.slice(app.indexOf(path.join(bin, 'linked')) - 2, app.indexOf(path.join(bin, 'linked')) + 1)).toEqual([
      '--ro-bind',
      fs.realpathSync('/bin/sh'),
      path.join(bin, 'linked'),
    ]);
    expect(app.slice(app.indexOf('--') + 1)).toEqual([path.join(bin, 'linked')]);
    expect(() => s.wrap({ command: 'no-such-tool-here', args: [], cwd: inTmp, env: { PATH: bin } }, [])).toThrow(
      'spawn no-such-tool-here ENOENT',
    );
  });

  it('shows readable paths under /tmp read-only, never one in or holding a hidden path', () => {
    const inv = path.join(inTmp, 'inventories');
    const data = path.join(inTmp, 'holds-data', 'data');
    fs.mkdirSync(inv);
    fs.mkdirSync(data, { recursive: true });
    fs.writeFileSync(path.join(inv, 'hosts.ini'), 'localhost\n');
    fs.writeFileSync(path.join(data, 'gantry.sqlite'), '');
    const s = new TaskSandbox({ requested: 'auto', network: 'host', hide: [data], systemPath: '/usr/bin', probe: works });
    const readable = [
      path.join(inv, 'hosts.ini'),
      path.join(inv, 'missing.ini'),
      path.join(data, 'gantry.sqlite'),
      path.dirname(data),
    ];
    const a = s.wrap({ command: 'bash', args: [], cwd: inTmp, env: { PATH: '/usr/bin' }, sandbox: { writable: [], readable } }, []).args;
    const roBinds = a.flatMap((x, i) => (x === '--ro-bind' ? [[a[i + 1], a[i + 2]]] : []));
    expect(roBinds).toContainEqual([path.join(inv, 'hosts.ini'), path.join(inv, 'hosts.ini')]);
    expect(roBinds.flat().some((p) => p?.startsWith(path.dirname(data)) || p?.includes('missing'))).toBe(false);
  });
});
