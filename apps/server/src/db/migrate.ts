import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Db, Engine } from './db.js';
import * as m001 from './migrations/001-initial.js';
import * as m002 from './migrations/002-project-resources.js';
import * as m003 from './migrations/003-templates-tasks.js';
import * as m004 from './migrations/004-schedules.js';
import * as m005 from './migrations/005-integrations.js';
import * as m006 from './migrations/006-apps.js';
import * as m007 from './migrations/007-totp.js';
import * as m008 from './migrations/008-runners.js';
import * as m010 from './migrations/010-terraform-workspaces.js';
import * as m011 from './migrations/011-template-extra-vars.js';
import * as m012 from './migrations/012-session-revocation.js';
import * as m013 from './migrations/013-oidc-identities-key-check.js';
import * as m014 from './migrations/014-webhook-deliveries.js';
import * as m015 from './migrations/015-lean-task-output.js';
import { MysqlSchemaPlugin } from './migrations/mysql-schema.js';
import * as m016 from './migrations/016-nodes.js';
import * as m017 from './migrations/017-terraform-backend.js';
import * as m018 from './migrations/018-webhook-delivery-bodies.js';
import * as m019 from './migrations/019-session-signed-in.js';
import * as m020 from './migrations/020-totp-confirmed.js';
import * as m021 from './migrations/021-identity-mappings.js';
import * as m022 from './migrations/022-instance-settings.js';
import * as m023 from './migrations/023-ldap-users.js';
import * as m025 from './migrations/025-audit.js';
import * as m024 from './migrations/024-passkeys.js';
import * as m026 from './migrations/026-audit-export.js';
import * as m027 from './migrations/027-workflows.js';
import * as m028 from './migrations/028-workflow-runs.js';
import * as m029 from './migrations/029-task-outputs.js';
import * as m030 from './migrations/030-approvals.js';
import * as m031 from './migrations/031-workflow-starts.js';
import * as m032 from './migrations/032-task-variable-group.js';
import * as m033 from './migrations/033-workflow-run-values.js';
import * as m034 from './migrations/034-template-lists.js';
import * as m035 from './migrations/035-schedule-answers.js';
import * as m036 from './migrations/036-inventory-sources-hosts.js';
import * as m037 from './migrations/037-terraform-governance.js';
import * as m038 from './migrations/038-notification-routing.js';
import * as m039 from './migrations/039-project-managed.js';

interface EngineMigration {
  up(db: Kysely<unknown>, engine: Engine): Promise<void>;
}

/** In order; names are permanent once released. */
const MIGRATIONS: Record<string, EngineMigration> = {
  '001-initial': m001,
  '002-project-resources': m002,
  '003-templates-tasks': m003,
  '004-schedules': m004,
  '005-integrations': m005,
  '006-apps': m006,
  '007-totp': m007,
  '008-runners': m008,
  '010-terraform-workspaces': m010,
  '011-template-extra-vars': m011,
  '012-session-revocation': m012,
  '013-oidc-identities-key-check': m013,
  '014-webhook-deliveries': m014,
  '015-lean-task-output': m015,
  '016-nodes': m016,
  '017-terraform-backend': m017,
  '018-webhook-delivery-bodies': m018,
  '019-session-signed-in': m019,
  '020-totp-confirmed': m020,
  '021-identity-mappings': m021,
  '022-instance-settings': m022,
  '023-ldap-users': m023,
  '025-audit': m025,
  '024-passkeys': m024,
  '026-audit-export': m026,
  '027-workflows': m027,
  '028-workflow-runs': m028,
  '029-task-outputs': m029,
  '030-approvals': m030,
  '031-workflow-starts': m031,
  '032-task-variable-group': m032,
  '033-workflow-run-values': m033,
  '034-template-lists': m034,
  '035-schedule-answers': m035,
  '036-inventory-sources-hosts': m036,
  '037-terraform-governance': m037,
  '038-notification-routing': m038,
  '039-project-managed': m039,
};

/** Every migration this build knows, in order: /api/ready compares them with the applied ones. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS);

class StaticProvider implements MigrationProvider {
  constructor(private readonly engine: Engine) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, m] of Object.entries(MIGRATIONS)) {
      out[name] = { up: (db) => m.up(db, this.engine) };
    }
    return out;
  }
}

/** Applies the migrations up to and including `name` (tests of a migration start from the schema before it). */
export async function migrateUpTo({ db, engine }: Db, name: string): Promise<void> {
  const migrator = new Migrator({
    db: engine === 'mysql' ? db.withPlugin(new MysqlSchemaPlugin()) : db,
    provider: new StaticProvider(engine),
  });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

/** Brings the schema up to date; returns the names of the migrations it applied. */
export async function migrateToLatest({ db, engine }: Db): Promise<string[]> {
  // On MySQL/MariaDB the migrations' DDL is adapted on its way (see mysql-schema.ts).
  const migrator = new Migrator({
    db: engine === 'mysql' ? db.withPlugin(new MysqlSchemaPlugin()) : db,
    provider: new StaticProvider(engine),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
