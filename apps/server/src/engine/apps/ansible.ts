/** Everything ansible-playbook is told for one run; files are already materialised. */
export interface AnsibleRun {
  playbook: string;
  /** Each one `-i`, in order (a template's inventories, or the one a task chose). */
  inventoryFiles: string[];
  login: string | null;
  privateKeyFile: string | null;
  becomePasswordFile: string | null;
  /** `name` null means the default vault id. `source` is a password file or a client script. */
  vaults: Array<{ name: string | null; source: string }>;
  /** -v repeated this many times; null for no debug output. */
  verbosity: number | null;
  check: boolean;
  diff: boolean;
  limit: string[];
  tags: string[];
  skipTags: string[];
  /** Managers' extra variables (JSON): Ansible may render templates in them. */
  extraVarsFile: string | null;
  /** Task input's extra variables (YAML, every string `!unsafe`); after the trusted file, as task values always came last. */
  untrustedVarsFile: string | null;
  sshCommonArgs: string[];
  templateArgs: string[];
  taskArgs: string[];
}

/** The argv of ansible-playbook, in the order: connection, become, vaults, verbosity, modes, filters, vars, arguments, playbook. */
export function ansibleArgv(r: AnsibleRun): string[] {
  const a: string[] = [];
  for (const f of r.inventoryFiles) a.push('-i', f);
  if (r.login) a.push('-u', r.login);
  if (r.privateKeyFile) a.push('--private-key', r.privateKeyFile);
  if (r.sshCommonArgs.length) a.push(`--ssh-common-args=${r.sshCommonArgs.join(' ')}`);
  if (r.becomePasswordFile) a.push('--become-password-file', r.becomePasswordFile);
  for (const v of r.vaults) a.push('--vault-id', `${v.name ?? 'default'}@${v.source}`);
  if (r.verbosity) a.push(`-${'v'.repeat(r.verbosity)}`);
  if (r.check) a.push('--check');
  if (r.diff) a.push('--diff');
  // One argv element each, `--opt=value`: a value can never be taken for an option.
  if (r.limit.length) a.push(`--limit=${r.limit.join(',')}`);
  if (r.tags.length) a.push(`--tags=${r.tags.join(',')}`);
  if (r.skipTags.length) a.push(`--skip-tags=${r.skipTags.join(',')}`);
  if (r.extraVarsFile) a.push('--extra-vars', `@${r.extraVarsFile}`);
  if (r.untrustedVarsFile) a.push('--extra-vars', `@${r.untrustedVarsFile}`);
  a.push(...r.templateArgs, ...r.taskArgs);
  a.push(r.playbook);
  return a;
}
