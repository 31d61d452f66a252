import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const UNIT = path.resolve(import.meta.dirname, '../../../../deploy/gantry.service');
const text = fs.readFileSync(UNIT, 'utf8');

/** `[Section]` -> key -> every value given (a key may repeat, e.g. Environment=). */
function parseUnit(source: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of source.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(\w+)\]$/.exec(line);
    if (section) {
      current = new Map();
      sections.set(section[1]!, current);
      continue;
    }
    const kv = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (!kv || !current) throw new Error(`not a unit line: ${raw}`);
    current.set(kv[1]!, [...(current.get(kv[1]!) ?? []), kv[2]!]);
  }
  return sections;
}

function hasCommand(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}

describe('deploy/gantry.service', () => {
  const unit = parseUnit(text);
  const service = unit.get('Service')!;
  const one = (key: string) => {
    const v = service.get(key);
    expect(v, key).toHaveLength(1);
    return v![0]!;
  };

  it('runs the built server as gantry with its state in /var/lib/gantry', () => {
    expect(one('User')).toBe('gantry');
    expect(one('ExecStart')).toMatch(/^\/\S*node \S*\/apps\/server\/bin\/gantry\.mjs server$/);
    expect(one('StateDirectory').split(/\s+/)).toContain('gantry');
    expect(service.get('Environment')).toContain('GANTRY_DATA_DIR=/var/lib/gantry');
    // The task folder must be writable under ProtectSystem=strict: a state directory too.
    const taskDir = service
      .get('Environment')!
      .find((e) => e.startsWith('GANTRY_TASK_DIR='))!
      .split('=')[1]!;
    expect(
      one('StateDirectory')
        .split(/\s+/)
        .map((d) => `/var/lib/${d}`),
    ).toContain(taskDir);
    expect(one('EnvironmentFile')).toBe('-/etc/gantry/gantry.env');
    expect(one('Restart')).toBe('on-failure');
    expect(unit.get('Install')?.get('WantedBy')).toEqual(['multi-user.target']);
  });

  it('is hardened without taking from bubblewrap what task sandboxing needs', () => {
    for (const [key, value] of Object.entries({
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      // slirp4netns needs /dev/net/tun (each task's network namespace gets its way out through it).
      PrivateDevices: 'no',
      DevicePolicy: 'closed',
      DeviceAllow: '/dev/net/tun rw',
      ProtectKernelModules: 'yes',
      ProtectControlGroups: 'yes',
      RestrictSUIDSGID: 'yes',
      LockPersonality: 'yes',
    })) {
      expect(one(key), key).toBe(value);
    }
    // bwrap makes a user, a mount, a PID and a network namespace for every task.
    expect(one('RestrictNamespaces').split(/\s+/).sort()).toEqual(['mnt', 'net', 'pid', 'user']);
    // These mount over /proc and make bwrap's fresh /proc fail (see the unit's comment).
    for (const key of [
      'ProtectKernelTunables',
      'ProtectKernelLogs',
      'ProtectProc',
      'SystemCallFilter',
      'PrivateUsers',
    ]) {
      expect(service.has(key), key).toBe(false);
    }
  });

  // Where systemd-analyze is missing, the key checks above still run.
  it.runIf(hasCommand('systemd-analyze'))('passes systemd-analyze verify', () => {
    // verify checks that ExecStart's program exists: point a copy at this machine's node if need be.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-unit-'));
    try {
      const node = one('ExecStart').split(' ')[0]!;
      const copy = path.join(dir, 'gantry.service');
      fs.writeFileSync(
        copy,
        fs.existsSync(node) ? text : text.replace(`ExecStart=${node} `, `ExecStart=${process.execPath} `),
      );
      const run = spawnSync('systemd-analyze', ['verify', copy], { cwd: dir, encoding: 'utf8' });
      // Unknown keys and bad values are only warnings (exit 0): any line about the unit fails too.
      expect(run.stderr.split('\n').filter((l) => l.includes('gantry.service'))).toEqual([]);
      expect(run.status, run.stderr).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
