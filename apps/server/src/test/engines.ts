import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { randomToken } from '../platform/crypto.js';

export interface TestDatabase {
  url: string;
  dataDir: string;
  drop(): Promise<void>;
}

interface EngineFactory {
  name: 'sqlite' | 'postgres' | 'mysql';
  create(): Promise<TestDatabase>;
}

const pgBase = process.env.GANTRY_TEST_PG_URL;
const mysqlBase = process.env.GANTRY_TEST_MYSQL_URL;

/** A temp folder holding the data folder, so the task folder beside it (`data-tasks`) goes with it. */
function testFolders(): { root: string; dataDir: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-test-'));
  // Passable (not listable) like a real server's parent folder: a root server's unsandboxed tasks
  // run as the task user, who must reach the task folder; the data folder stays 0700.
  fs.chmodSync(root, 0o711);
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(dataDir, { mode: 0o700 });
  return { root, dataDir };
}

/**
 * SQLite always; PostgreSQL too when GANTRY_TEST_PG_URL names a server, MySQL/MariaDB when
 * GANTRY_TEST_MYSQL_URL does (each test app gets its own database on them).
 */
export const engines: EngineFactory[] = [
  {
    name: 'sqlite',
    async create() {
      const { root, dataDir } = testFolders();
      return {
        url: `sqlite:${path.join(dataDir, 'gantry.sqlite')}`,
        dataDir,
        drop: async () => fs.rmSync(root, { recursive: true, force: true }),
      };
    },
  },
  ...(pgBase
    ? [
        {
          name: 'postgres' as const,
          async create(): Promise<TestDatabase> {
            const name = `gantry_t_${randomToken(12)}`;
            const admin = new pg.Client({ connectionString: pgBase });
            await admin.connect();
            await admin.query(`CREATE DATABASE ${name}`);
            await admin.end();
            const url = new URL(pgBase);
            url.pathname = `/${name}`;
            const { root, dataDir } = testFolders();
            return {
              url: url.toString(),
              dataDir,
              drop: async () => {
                const c = new pg.Client({ connectionString: pgBase });
                await c.connect();
                // pg's Pool.end() resolves before its clients' sockets close; a FORCE drop racing
                // them makes a closing client report an error nobody listens to. Let them go first.
                for (let i = 0; i < 40; i++) {
                  const r = await c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
                  if (r.rows[0].n === 0) break;
                  await new Promise((resolve) => setTimeout(resolve, 50));
                }
                await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
                await c.end();
                fs.rmSync(root, { recursive: true, force: true });
              },
            };
          },
        },
      ]
    : []),
  ...(mysqlBase
    ? [
        {
          name: 'mysql' as const,
          async create(): Promise<TestDatabase> {
            const name = `gantry_t_${randomToken(12)}`;
            const admin = await mysql.createConnection(mysqlBase);
            await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
            await admin.end();
            const url = new URL(mysqlBase);
            url.pathname = `/${name}`;
            const { root, dataDir } = testFolders();
            return {
              url: url.toString(),
              dataDir,
              drop: async () => {
                const c = await mysql.createConnection(mysqlBase);
                await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
                await c.end();
                fs.rmSync(root, { recursive: true, force: true });
              },
            };
          },
        },
      ]
    : []),
];
