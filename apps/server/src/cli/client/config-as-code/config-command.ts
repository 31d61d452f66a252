import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { ApiClient } from '../api-client.js';
import { CliError } from '../cli-error.js';
import { findProject } from '../lookup.js';
import { applyConfig } from './apply.js';
import { readConfigs } from './config-file.js';
import { exportProject } from './export.js';

type Connect = (profile?: string) => ApiClient;

export const APPLY_OPTIONS = {
  file: { type: 'string', short: 'f' },
  'dry-run': { type: 'boolean' },
  prune: { type: 'boolean' },
  'rotate-secrets': { type: 'boolean' },
  profile: { type: 'string' },
} as const;

export const EXPORT_OPTIONS = {
  project: { type: 'string' },
  format: { type: 'string' },
  out: { type: 'string' },
  profile: { type: 'string' },
} as const;

/** `gantry apply -f FILE|DIR [--dry-run] [--prune] [--rotate-secrets]`. */
export async function applyCommand(args: string[], connect: Connect): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: APPLY_OPTIONS,
    allowPositionals: true,
  });
  if (positionals.length) throw new CliError(`Unexpected argument: ${positionals[0]}`);
  if (!values.file) throw new CliError('Usage: gantry apply -f FILE|DIR [--dry-run] [--prune] [--rotate-secrets]');
  // Every file is read and checked before the first API call: a bad file changes nothing.
  const configs = readConfigs(values.file);
  const client = connect(values.profile);
  const opts = { dryRun: !!values['dry-run'], prune: !!values.prune, rotateSecrets: !!values['rotate-secrets'] };
  for (const cfg of configs) {
    const n = await applyConfig(client, cfg, opts, (line) => process.stdout.write(`${line}\n`));
    const name = cfg.project.name;
    const summary =
      n === 0
        ? `${name}: no changes`
        : opts.dryRun
          ? `${name}: ${n} change${n === 1 ? '' : 's'} (dry run: nothing applied)`
          : `${name}: ${n} change${n === 1 ? '' : 's'} applied`;
    process.stdout.write(`${summary}\n`);
  }
  return 0;
}

/** `gantry export --project P --format yaml [--out FILE]`. */
export async function exportCommand(args: string[], connect: Connect): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: EXPORT_OPTIONS,
    allowPositionals: true,
  });
  if (positionals.length) throw new CliError(`Unexpected argument: ${positionals[0]}`);
  if (!values.project) throw new CliError('--project is required (its id or name)');
  if ((values.format ?? 'yaml') !== 'yaml') throw new CliError('--format must be yaml');
  const client = connect(values.profile);
  const text = await exportProject(client, (await findProject(client, values.project)).id);
  if (values.out) {
    try {
      fs.writeFileSync(values.out, text);
    } catch (err) {
      throw new CliError(`Cannot write ${values.out}: ${(err as Error).message}`);
    }
  } else process.stdout.write(text);
  return 0;
}
