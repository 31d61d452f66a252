import { describe, expect, it } from 'vitest';
import { forbiddenAnsibleArgument } from './ansible-arguments.js';

describe('ansible-playbook options a task may not pass', () => {
  it('refuses options that read files or run commands, in every spelling argparse takes', () => {
    const refused: string[][] = [
      ['-e', '@/etc/shadow'],
      ['-e@/etc/shadow'],
      ['-e=@/etc/shadow'],
      ['--extra-vars=@/etc/shadow'],
      ['--extra-vars', '@/etc/shadow'],
      ['--extra=@f'],
      ['--ex', '@f'],
      ['-ve@f'],
      ['-vvv', '-e', '@f'],
      ['--ssh-common-args=-o ProxyCommand=id'],
      ['--ssh-common-args', '-o ProxyCommand=id'],
      ['--ssh-com=-o ProxyCommand=id'],
      ['--ssh-extra-args=-R 1:2'],
      ['--ssh', 'x'],
      ['--scp-extra-args=x'],
      ['--sftp-extra-args=x'],
      ['-i', '/etc/hosts'],
      ['-ihosts'],
      ['-vi', 'inv'],
      ['--inventory=x'],
      ['--inventory-file', 'x'],
      ['--inv', 'x'],
      ['--vault-password-file=/bin/sh'],
      ['--vault-pass-file', 'x'],
      ['--vault-id', 'a@/tmp/script'],
      ['--module-path=/tmp'],
      ['-M', '/tmp'],
      ['-CM/tmp'],
      ['-c', 'local'],
      ['--connection=local'],
      ['--conn', 'local'],
      ['--private-key=/root/.ssh/id_rsa'],
      ['--key-file', 'x'],
      ['--become-password-file=x'],
      ['--become-pass-file=x'],
      ['--connection-password-file=x'],
      ['--conn-pass-file=x'],
      ['--limit', 'localhost,@/etc/hostname'],
      ['-l@/etc/hostname'],
      ['--forks', '5', '-e', '@f'],
    ];
    for (const args of refused) expect(forbiddenAnsibleArgument(args), JSON.stringify(args)).not.toBeNull();
    expect(forbiddenAnsibleArgument(['--forks', '5', '--ssh-common-args=x'])).toBe('--ssh-common-args=x');
  });

  it('lets ordinary options through', () => {
    const allowed: string[][] = [
      [],
      ['--forks', '10'],
      ['-f5'],
      ['-e', 'version=1.2'],
      ['-e', '{"a": 1}'],
      ['--extra-vars=a=b'],
      ['-vvv'],
      ['--check', '--diff'],
      ['-CD'],
      ['--limit', 'web:&prod'],
      ['--start-at-task', 'Install @ the end'],
      ['-u', 'deploy'],
      ['-t', 'deploy'],
      ['--become', '--become-user', 'root'],
      ['-fi'],
      ['--', 'x'],
    ];
    for (const args of allowed) expect(forbiddenAnsibleArgument(args), JSON.stringify(args)).toBeNull();
  });
});
