import path from 'node:path';
import { z } from 'zod';

const bool = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === '') return false;
    if (/^(1|true|yes|on)$/i.test(v)) return true;
    if (/^(0|false|no|off)$/i.test(v)) return false;
    ctx.addIssue({ code: 'custom', message: `expected true or false, got "${v}"` });
    return z.NEVER;
  });

const envSchema = z.object({
  GANTRY_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  GANTRY_HOST: z.string().default('0.0.0.0'),
  GANTRY_DATA_DIR: z.string().default('./data'),
  GANTRY_DB_URL: z.string().optional(),
  GANTRY_SECRET_KEY: z.string().optional(),
  GANTRY_WEB_HOST: z.string().default(''),
  GANTRY_ADMIN: z.string().optional(),
  GANTRY_ADMIN_PASSWORD: z.string().optional(),
  GANTRY_ADMIN_EMAIL: z.string().optional(),
  GANTRY_ADMIN_NAME: z.string().optional(),
  GANTRY_NON_ADMIN_CAN_CREATE_PROJECT: bool,
  GANTRY_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  GANTRY_WEB_DIST: z.string().optional(),
  GANTRY_MAX_PARALLEL_TASKS: z.coerce.number().int().min(1).default(10),
  PATH: z.string().default('/usr/local/bin:/usr/bin:/bin'),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** `sqlite:<file>` or a postgres:// URL. */
  dbUrl: string;
  secretKey: string | undefined;
  webHost: string;
  admin: { login: string; password?: string; email?: string; name?: string } | undefined;
  nonAdminCanCreateProject: boolean;
  logLevel: string;
  /** Folder with the built console; served at /. */
  webDist: string;
  version: string;
  /** Tasks this server runs at once, over all projects. */
  maxParallelTasks: number;
  /** PATH given to task processes (the only variable of the server's environment they get). */
  systemPath: string;
}

export class ConfigError extends Error {}

/** The only reader of the environment: parses it once and fails with every bad value listed. */
export function loadConfig(env: Record<string, string | undefined> = process.env, version = '0.1.0'): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const list = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${list}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.GANTRY_DATA_DIR);
  const dbUrl = e.GANTRY_DB_URL?.trim() || `sqlite:${path.join(dataDir, 'gantry.sqlite')}`;
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(dbUrl)) {
    throw new ConfigError('Invalid configuration: GANTRY_DB_URL must start with sqlite: or postgres://');
  }
  return {
    port: e.GANTRY_PORT,
    host: e.GANTRY_HOST,
    dataDir,
    dbUrl,
    secretKey: e.GANTRY_SECRET_KEY || undefined,
    webHost: e.GANTRY_WEB_HOST.replace(/\/+$/, ''),
    admin: e.GANTRY_ADMIN
      ? {
          login: e.GANTRY_ADMIN,
          password: e.GANTRY_ADMIN_PASSWORD,
          email: e.GANTRY_ADMIN_EMAIL,
          name: e.GANTRY_ADMIN_NAME,
        }
      : undefined,
    nonAdminCanCreateProject: e.GANTRY_NON_ADMIN_CAN_CREATE_PROJECT,
    logLevel: e.GANTRY_LOG_LEVEL,
    webDist: path.resolve(e.GANTRY_WEB_DIST ?? defaultWebDist()),
    version,
    maxParallelTasks: e.GANTRY_MAX_PARALLEL_TASKS,
    systemPath: e.PATH,
  };
}

function defaultWebDist(): string {
  // dist/config/config.js -> apps/web/dist
  return path.resolve(import.meta.dirname, '../../../web/dist');
}
