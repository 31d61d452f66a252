import { hostAddresses, trustProxyWarnings } from './config/trust-proxy.js';
import { buildApp } from './app.js';
import { ensureAdmin } from './bootstrap.js';
import { loadConfig } from './config/config.js';
import { secureDataFolders } from './config/data-dir.js';
import {
  describeSecretKeySource,
  readStagedSecretKey,
  resolveSecretKey,
  secretKeySource,
} from './config/secret-key.js';
import { createDb } from './db/db.js';
import { migrateToLatest } from './db/migrate.js';
import { checkSqliteBeforeStart } from './db/sqlite-integrity.js';
import { serverTaskSandbox } from './engine/sandbox.js';
import { masterKeyService } from './modules/system/master-key.service.js';
import { SecretBox } from './platform/crypto.js';
import { handleShutdownSignals } from './shutdown.js';
import { surviveDatabaseRejections } from './platform/process-guard.js';
import { VERSION } from './version.js';

/** Start-up: configuration, database and migrations, first admin, then listen. */
export async function startServer(): Promise<void> {
  // Everything the server creates (database, key, workspaces, logs) is for its own user only.
  process.umask(0o077);
  const config = loadConfig(undefined, VERSION);
  // Before anything creates a key or writes: a damaged or emptied SQLite file stops the start.
  checkSqliteBeforeStart({ dbUrl: config.dbUrl, dataDir: config.dataDir });
  surviveDatabaseRejections(config.dbUrl);
  // GANTRY_TASK_SANDBOX=bwrap refuses to start here when bwrap does not work.
  const sandbox = serverTaskSandbox(config);
  sandbox.check();
  secureDataFolders(config);
  const secretKey = resolveSecretKey(config.secretKey, config.dataDir);
  const db = createDb(config.dbUrl);
  await migrateToLatest(db);
  // Before anything can seal a secret: a changed key stops the start (MasterKeyError, exit 1),
  // saying so when secret.key.new (a rekey stopped before its rename) holds the right key.
  const staged = readStagedSecretKey(config.secretKey, config.dataDir);
  await masterKeyService(db).verify(
    new SecretBox(secretKey),
    describeSecretKeySource(secretKeySource(config.secretKey, config.dataDir)),
    staged && { box: new SecretBox(staged.key), source: staged.file },
  );
  const app = await buildApp({ config, db, secretKey, sandbox });
  if (db.engine === 'mysql') app.log.info('Database: MySQL/MariaDB, for one server node; several nodes sharing one database need PostgreSQL');
  if (sandbox.warning) {
    app.log.warn(sandbox.warning);
    const hint =
      sandbox.status().requested === 'off'
        ? 'Unset GANTRY_TASK_SANDBOX'
        : 'Install bubblewrap (Debian/Ubuntu package "bubblewrap")';
    process.stdout.write(`\n  WARNING: ${sandbox.warning}.\n  ${hint} to sandbox tasks.\n\n`);
  }
  if (config.metrics.enabled && !config.metrics.token)
    app.log.warn('GET /metrics is public: anyone who reaches this server reads its metrics (set GANTRY_METRICS_TOKEN to require a token)');
  // X-Forwarded-For is believed only from the proxy's own address, never from one a task can use.
  for (const line of trustProxyWarnings(config.trustProxy, { tasksIsolated: sandbox.isolatesNetwork, hostAddresses: hostAddresses() })) app.log.warn(line);
  if (process.getuid?.() === 0) {
    // Tasks never keep root: they drop to the task user without any capability (measured below).
    const probe = (await app.services.sandboxReport()).probe;
    const who = probe?.uid != null ? `${probe.user ?? 'uid'} (uid ${probe.uid})` : 'the task user';
    const line = `The server runs as root; tasks run as ${who} with capabilities ${probe?.capabilities ?? 'unknown'}. Running Gantry as an unprivileged user is safer (see README, "Running in production")`;
    app.log.warn(line);
    process.stdout.write(`\n  WARNING: ${line}.\n\n`);
  }
  const created = await ensureAdmin(app.services, config);
  if (created) {
    // Printed once, on the terminal only: it is never written to the log or the database.
    process.stdout.write(
      `\n  First start: created administrator "${created.login}" with password: ${created.password}\n` +
        `  Change it after signing in (user menu > Edit account).\n\n`,
    );
  }
  // Before the first task: where the kernel puts task folders decides what a flood of tasks costs.
  await app.services.spreadTaskFolders();
  handleShutdownSignals(app, db);
  await app.listen({ port: config.port, host: config.host });
  const failed = await app.services.tasks.failOrphans();
  if (failed) app.log.warn(`${failed} task(s) left running by the previous start were marked as failed`);
  // Their folders (key files with them) and agents went with no run to remove them.
  const left = await app.services.removeLeftovers();
  if (left.folders || left.agents) app.log.warn(`Removed ${left.folders} task folder(s) and ${left.agents} ssh-agent(s) left by the previous start`);
  // Checkouts kept for projects deleted meanwhile (or on another node): in the background.
  void app.services.projectCache.pruneDeleted().catch(() => undefined);
  app.services.dispatcher.kick();
  app.services.scheduler.start();
  process.stdout.write(`Gantry ${VERSION} is serving on http://${displayHost(config.host)}:${config.port}\n`);
}

function displayHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? 'localhost' : host;
}
