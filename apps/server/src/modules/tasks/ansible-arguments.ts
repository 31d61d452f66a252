/**
 * The ansible-playbook options a task's argument override may not use: those that read files or
 * run commands on the server (extra-vars files, SSH/SCP/SFTP command options, inventories, vault
 * password files and scripts, module paths, connection plugins, key and password files).
 *
 * ansible-playbook parses with argparse, which takes any unambiguous prefix of a long option
 * (`--ssh-com=...`) and clustered short flags (`-vi inv`, `-ve@f`); both forms are recognised.
 */

/** Long options refused whatever their value (aliases included). */
const FORBIDDEN_LONG = [
  '--ssh-common-args',
  '--ssh-extra-args',
  '--scp-extra-args',
  '--sftp-extra-args',
  '--inventory',
  '--inventory-file',
  '--vault-password-file',
  '--vault-pass-file',
  '--vault-id',
  '--module-path',
  '--connection',
  '--private-key',
  '--key-file',
  '--become-password-file',
  '--become-pass-file',
  '--connection-password-file',
  '--conn-pass-file',
];
/** Every other long option of ansible-playbook 2.14: an exact name is that option, never an abbreviation. */
const OTHER_LONG = new Set([
  '--ask-vault-password',
  '--ask-vault-pass',
  '--flush-cache',
  '--force-handlers',
  '--list-hosts',
  '--list-tags',
  '--list-tasks',
  '--skip-tags',
  '--start-at-task',
  '--step',
  '--syntax-check',
  '--version',
  '--check',
  '--diff',
  '--ask-become-pass',
  '--extra-vars',
  '--forks',
  '--help',
  '--ask-pass',
  '--limit',
  '--tags',
  '--verbose',
  '--timeout',
  '--user',
  '--become-method',
  '--become-user',
  '--become',
]);
/** Long options refused when their value names a file (`@file`): extra variables and the limit. */
const FILE_VALUE_LONG = ['--extra-vars', '--limit'];

/** Short options refused whatever their value. */
const FORBIDDEN_SHORT = new Set(['i', 'M', 'c']);
/** Short options refused when their value names a file. */
const FILE_VALUE_SHORT = new Set(['e', 'l']);
/** Short options that take a value (the rest of the cluster, or the next argument). */
const VALUE_SHORT = new Set(['M', 'e', 'f', 'i', 'l', 't', 'T', 'c', 'u']);

const readsFile = (value: string | undefined) => value !== undefined && value.replace(/^=/, '').includes('@');

/**
 * The first argument that uses a refused option, or null when all may be passed. `--limit`
 * values must not contain `@` at all (Ansible reads `@file` anywhere in a host list); extra
 * variables may not start with `@`.
 */
export function forbiddenAnsibleArgument(args: string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq === -1 ? arg : arg.slice(0, eq);
      // `--` alone ends the options; what follows is positional.
      if (name === '--') continue;
      const value = eq === -1 ? next : arg.slice(eq + 1);
      // Any option of which `name` may be an abbreviation counts, ambiguous ones included
      // (`--become` itself is an option, not an abbreviation of `--become-password-file`).
      if (!OTHER_LONG.has(name) && FORBIDDEN_LONG.some((o) => o.startsWith(name))) return arg;
      const fileOption = FILE_VALUE_LONG.find((o) => o.startsWith(name));
      if (fileOption === '--extra-vars' && value?.startsWith('@')) return arg;
      if (fileOption === '--limit' && readsFile(value)) return arg;
    } else if (arg.startsWith('-') && arg.length > 1) {
      for (let j = 1; j < arg.length; j++) {
        const flag = arg[j]!;
        if (FORBIDDEN_SHORT.has(flag)) return arg;
        if (!VALUE_SHORT.has(flag)) continue;
        const rest = arg.slice(j + 1);
        const value = rest === '' ? next : rest.replace(/^=/, '');
        if (FILE_VALUE_SHORT.has(flag) && (flag === 'e' ? value?.startsWith('@') : readsFile(value))) return arg;
        break;
      }
    }
  }
  return null;
}
