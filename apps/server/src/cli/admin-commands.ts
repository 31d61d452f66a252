import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { userCreateFormSchema, WORKFLOW_RUN_FINISHED } from '@gantry/contracts';
import { createServices } from '../app.js';
import { loadConfig } from '../config/config.js';
import {
  describeSecretKeySource,
  parseSecretKey,
  readStagedSecretKey,
  removeStagedSecretKey,
  resolveSecretKey,
  secretKeySource,
  stageSecretKeyFile,
} from '../config/secret-key.js';
import { createDb } from '../db/db.js';
import { migrateToLatest } from '../db/migrate.js';
import { parseRestoreBody } from '../modules/backup/backup.parse.js';
import { masterKeyService } from '../modules/system/master-key.service.js';
import { SecretBox } from '../platform/crypto.js';
import { VERSION } from '../version.js';
import { runAsCaller } from '../modules/audit/audit-context.js';
import { fail } from './fail.js';
import { USAGE } from './usage.js';

// The commands that open the database themselves. main.ts loads this file only for them, so the
// client commands (and help, version) start without loading the server's modules.

/** `gantry migrate`: brings the schema up to date and says what it applied. */
export async function migrateCommand(): Promise<void> {
  await withServices(async (_s, applied) => {
    process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date\n');
  });
}

export async function userCommand(sub: string, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      login: { type: 'string' },
      name: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      admin: { type: 'boolean', default: false },
    },
  });
  await withServices(async ({ users }) => {
    switch (sub) {
      case 'list': {
        for (const u of await users.list()) {
          process.stdout.write(`${u.id}\t${u.username}\t${u.name}\t${u.email}${u.admin ? '\tadmin' : ''}\n`);
        }
        return;
      }
      case 'add': {
        // Like the console's form: an account made here gets a password.
        const input = userCreateFormSchema.parse({
          username: values.login,
          name: values.name,
          email: values.email,
          password: values.password,
          admin: values.admin,
        });
        const row = await users.create(input);
        process.stdout.write(`User ${row.username} created (id ${row.id})\n`);
        return;
      }
      case 'change-by-login': {
        if (!values.login || !values.password) fail('--login and --password are required');
        const row = await users.findByLogin(values.login!);
        if (!row) fail(`No user with login ${values.login}`);
        await users.resetPassword(row!.id, values.password!);
        process.stdout.write(`Password of ${row!.username} changed\n`);
        return;
      }
      case 'delete': {
        if (!values.login) fail('--login is required');
        const row = await users.findByLogin(values.login!);
        if (!row) fail(`No user with login ${values.login}`);
        await users.deleteByAdmin(row!.id);
        process.stdout.write(`User ${row!.username} deleted\n`);
        return;
      }
      default:
        fail(`Unknown user command: ${sub}\n\n${USAGE}`);
    }
  });
}

export async function projectCommand(sub: string, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      id: { type: 'string' },
      out: { type: 'string' },
      file: { type: 'string' },
      owner: { type: 'string' },
      format: { type: 'string' },
    },
  });
  await withServices(async ({ backup, users }) => {
    switch (sub) {
      case 'export': {
        const id = Number(values.id);
        if (!Number.isInteger(id) || id <= 0) fail('--id is required (a project id)');
        const format = values.format ?? 'gantry';
        if (format !== 'gantry' && format !== 'semaphore') fail('--format must be gantry or semaphore');
        const text = `${JSON.stringify((await backup.exportAs(null, id, format as 'gantry' | 'semaphore')).backup, null, 2)}\n`;
        if (!values.out) return void process.stdout.write(text);
        fs.writeFileSync(values.out, text);
        process.stderr.write(`Project ${id} exported to ${values.out}\n`);
        return;
      }
      case 'import': {
        if (!values.file || !values.owner) fail('--file and --owner are required');
        const owner = await users.findByLogin(values.owner!);
        if (!owner) fail(`No user with login ${values.owner}`);
        let raw: unknown;
        try {
          raw = JSON.parse(fs.readFileSync(values.file!, 'utf8'));
        } catch (err) {
          fail(`Cannot read ${values.file}: ${(err as Error).message}`);
        }
        // The operator of the server decides here: the project-creation setting does not apply.
        const { doc, unmapped } = await parseRestoreBody(raw);
        const result = await backup.restore({ id: owner!.id, admin: true }, doc, unmapped);
        process.stdout.write(
          `Project ${result.projectName} restored (id ${result.id}, owner ${owner!.username}, ${result.emptyKeys} empty keys)\n`,
        );
        // What the file held that Gantry could not carry over (the importer's and the restore's).
        for (const item of result.unmapped ?? []) process.stdout.write(`  not restored: ${item}\n`);
        return;
      }
      default:
        fail(`Unknown project command: ${sub}\n\n${USAGE}`);
    }
  });
}

/**
 * `gantry workflow run`: the run is a row like any other start's; whichever server node is up
 * drives it (runs are driven through the database), so this command only starts it and, with
 * --wait, reads its status until it ends.
 */
export async function workflowRunCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      project: { type: 'string' },
      workflow: { type: 'string' },
      as: { type: 'string' },
      wait: { type: 'boolean', default: false },
    },
  });
  const projectId = Number(values.project);
  const workflowId = Number(values.workflow);
  if (!Number.isInteger(projectId) || projectId <= 0 || !Number.isInteger(workflowId) || workflowId <= 0)
    fail('--project and --workflow are required (ids)');
  let code = 0;
  await withServices(async ({ workflowRuns, users }) => {
    const user = values.as === undefined ? null : await users.findByLogin(values.as);
    if (values.as !== undefined && !user) fail(`No user with login ${values.as}`);
    const actor = user ? { id: user.id, admin: user.admin === 1 } : null;
    let run = await workflowRuns.start(actor, projectId, workflowId);
    process.stdout.write(`Run #${run.id} of ${run.workflow_name} started\n`);
    if (!values.wait) return;
    while (!WORKFLOW_RUN_FINISHED.includes(run.status)) {
      await new Promise((r) => setTimeout(r, 1000));
      run = await workflowRuns.get(projectId, workflowId, run.id);
    }
    process.stdout.write(`Run #${run.id} ended: ${run.status}\n`);
    for (const n of run.nodes)
      process.stdout.write(
        `  ${n.id}\t${n.status}\t${n.attempts} tries${n.task_ids.length ? `\ttasks ${n.task_ids.join(', ')}` : ''}${n.error ? `\t${n.error}` : ''}\n`,
      );
    code = run.status === 'success' ? 0 : run.status === 'failed' ? 1 : 2;
  });
  if (code !== 0) process.exit(code);
}

async function withServices(fn: (s: ReturnType<typeof createServices>, applied: string[]) => Promise<void>) {
  const config = loadConfig(process.env, VERSION);
  const db = createDb(config.dbUrl);
  try {
    const applied = await migrateToLatest(db);
    const secretKey = resolveSecretKey(config.secretKey, config.dataDir);
    // Commands write through the same services as the server: the same key check first.
    const staged = readStagedSecretKey(config.secretKey, config.dataDir);
    await masterKeyService(db).verify(
      new SecretBox(secretKey),
      describeSecretKeySource(secretKeySource(config.secretKey, config.dataDir)),
      staged && { box: new SecretBox(staged.key), source: staged.file },
    );
    // What a command changes is recorded in the audit trail as the command line's doing.
    await runAsCaller({ authKind: 'cli' }, () => fn(createServices({ config, db, secretKey }), applied));
  } finally {
    await db.close();
  }
}

/**
 * `gantry rekey`: every sealed value and the check value move to the new key in one transaction.
 * A key file is replaced only after the commit (renamed into place); a key from GANTRY_SECRET_KEY
 * cannot be changed from here, so the operator is told to update it. A `secret.key.new` left by
 * an earlier run is removed only when it does not open the database; one that does is the key a
 * run that stopped after its commit left behind, and this run refuses to start.
 */
export async function rekeyCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { 'new-key': { type: 'string' }, 'new-key-file': { type: 'string' } },
  });
  const given = values['new-key'] ?? values['new-key-file'];
  if (!given || (values['new-key'] !== undefined && values['new-key-file'] !== undefined))
    fail('Give the new key with --new-key KEY or --new-key-file FILE (one of them)');
  let text = values['new-key'] ?? '';
  if (values['new-key-file'] !== undefined) {
    try {
      text = fs.readFileSync(values['new-key-file'], 'utf8');
    } catch (err) {
      fail(`Cannot read ${values['new-key-file']}: ${(err as Error).message}`);
    }
  }
  text = text.trim();
  if (!text) fail('The new key is empty');
  const config = loadConfig(process.env, VERSION);
  const source = secretKeySource(config.secretKey, config.dataDir);
  if (source.kind === 'file' && !source.exists)
    fail(`No current master key: GANTRY_SECRET_KEY is not set and ${source.file} does not exist`);
  const current = resolveSecretKey(config.secretKey, config.dataDir);
  const next = parseSecretKey(text);
  if (next.equals(current)) fail('The new key is the same as the current one');
  const db = createDb(config.dbUrl);
  try {
    await migrateToLatest(db);
    const keys = masterKeyService(db);
    const leftover = readStagedSecretKey(config.secretKey, config.dataDir);
    if (leftover && (await keys.opensCheck(new SecretBox(leftover.key)))) {
      throw new Error(
        `${leftover.file} holds the key that opens this database: an earlier gantry rekey stopped before it replaced ${describeSecretKeySource(source)}. ` +
          `Move ${leftover.file} over ${describeSecretKeySource(source)} first (the server will not start until then), then run rekey again if the key is still to change. Nothing was changed.`,
      );
    }
    if (leftover) {
      removeStagedSecretKey(config.dataDir);
      process.stderr.write(
        `Removed ${leftover.file}: left by an earlier gantry rekey, it does not open this database.\n`,
      );
    }
    const staged = source.kind === 'file' ? stageSecretKeyFile(config.dataDir, text) : undefined;
    let count: number;
    try {
      count = await keys.rekey(new SecretBox(current), new SecretBox(next), describeSecretKeySource(source));
    } catch (err) {
      staged?.discard();
      throw err;
    }
    staged?.commit();
    process.stdout.write(`Re-sealed ${count} secret value(s) with the new master key.\n`);
    process.stdout.write(
      source.kind === 'file'
        ? `The new key is now in ${source.file}.\n`
        : 'GANTRY_SECRET_KEY still holds the old key: set it to the new key before starting the server.\n',
    );
  } finally {
    await db.close();
  }
}
