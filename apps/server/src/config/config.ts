import path from 'node:path';
import { TASK_NETWORK_SETTINGS, TASK_SANDBOX_SETTINGS, TWO_FACTOR_POLICIES, type TaskNetworkSetting, type TaskSandboxSetting, type TwoFactorPolicy } from '@gantry/contracts';
import { z } from 'zod';
import { auditExportEnv, toAuditExportConfig, type AuditExportConfig } from './audit-export.js';
import { ldapEnv, toLdapConfig, type LdapConfig } from './ldap.js';
import { oidcProvidersEnv, toOidcProviders, type OidcProviderConfig } from './oidc-providers.js';
import { trustProxyEnv } from './trust-proxy.js';
import { VERSION } from '../version.js';

/** A true/false switch; unset or empty means `fallback` (undefined: left to other settings). */
const boolDefault = <T extends boolean | undefined>(fallback: T) =>
  z
    .string()
    .optional()
    .transform((v, ctx): boolean | T => {
      if (v === undefined || v === '') return fallback;
      if (/^(1|true|yes|on)$/i.test(v)) return true;
      if (/^(0|false|no|off)$/i.test(v)) return false;
      ctx.addIssue({ code: 'custom', message: `expected true or false, got "${v}"` });
      return z.NEVER;
    });

const bool = boolDefault(false);

/** Optional text: empty means unset. */
const optionalText = z
  .string()
  .optional()
  .transform((v) => v?.trim() || undefined);

/** Optional http(s) URL; the message never repeats the value (webhook URLs are secrets). */
const optionalHttpUrl = optionalText.pipe(z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional());

/** GANTRY_TASK_SANDBOX (also read by remote runners); unset or empty means auto. */
export const taskSandboxSetting = z
  .string()
  .optional()
  .transform((v, ctx): TaskSandboxSetting => {
    const value = v?.trim().toLowerCase() || 'auto';
    if ((TASK_SANDBOX_SETTINGS as readonly string[]).includes(value)) return value as TaskSandboxSetting;
    ctx.addIssue({ code: 'custom', message: `expected auto, bwrap or off, got "${v}"` });
    return z.NEVER;
  });

/** GANTRY_TASK_NETWORK (also read by remote runners); unset or empty means isolated. */
export const taskNetworkSetting = z
  .string()
  .optional()
  .transform((v, ctx): TaskNetworkSetting => {
    const value = v?.trim().toLowerCase() || 'isolated';
    if ((TASK_NETWORK_SETTINGS as readonly string[]).includes(value)) return value as TaskNetworkSetting;
    ctx.addIssue({ code: 'custom', message: `expected isolated or host, got "${v}"` });
    return z.NEVER;
  });

/** GANTRY_TASK_USER: a user name or uid[:gid] tasks run as when the server is root; never root itself. */
export const taskUserSetting = z
  .string()
  .optional()
  .transform((v, ctx): string | null => {
    const value = v?.trim() || null;
    if (value === null) return null;
    if (value === 'root' || /^0(:\d+)?$/.test(value) || /^\d+:0$/.test(value)) {
      ctx.addIssue({ code: 'custom', message: 'tasks never run as root: name an unprivileged user' });
      return z.NEVER;
    }
    if (!/^(\d+(:\d+)?|[a-z_][a-z0-9_.-]*\$?)$/i.test(value)) {
      ctx.addIssue({ code: 'custom', message: `expected a user name or uid[:gid], got "${v}"` });
      return z.NEVER;
    }
    return value;
  });

/** GANTRY_ALLOWED_LOCAL_PATHS: comma-separated absolute folders; unset or empty means none. */
const allowedLocalPaths = z
  .string()
  .optional()
  .transform((v, ctx): string[] => {
    const list = (v ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    const relative = list.filter((p) => !path.isAbsolute(p));
    if (relative.length) {
      ctx.addIssue({ code: 'custom', message: `expected absolute paths, got "${relative.join('", "')}"` });
    }
    return list.map((p) => path.resolve(p));
  });

/** GANTRY_FETCH_ALLOWED_HOSTS: comma-separated host names or IP addresses; unset or empty means none. */
const fetchAllowedHosts = z
  .string()
  .optional()
  .transform((v, ctx): string[] => {
    const list = (v ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase().replace(/^\[|\]$/g, ''))
      .filter(Boolean);
    const bad = list.filter((h) => !/^[a-z0-9.:_-]+$/.test(h));
    if (bad.length) ctx.addIssue({ code: 'custom', message: `expected host names or IP addresses, got "${bad.join('", "')}"` });
    return list;
  });

const envSchema = z.object({
  GANTRY_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  GANTRY_HOST: z.string().default('0.0.0.0'),
  GANTRY_DATA_DIR: z.string().default('./data'),
  GANTRY_TASK_DIR: optionalText,
  GANTRY_TASK_SANDBOX: taskSandboxSetting,
  GANTRY_ALLOWED_LOCAL_PATHS: allowedLocalPaths,
  GANTRY_FETCH_ALLOWED_HOSTS: fetchAllowedHosts,
  GANTRY_TASK_NETWORK: taskNetworkSetting,
  GANTRY_TASK_USER: taskUserSetting,
  GANTRY_DB_URL: z.string().optional(),
  GANTRY_SECRET_KEY: z.string().optional(),
  GANTRY_WEB_HOST: z.string().default(''),
  GANTRY_ADMIN: z.string().optional(),
  GANTRY_ADMIN_PASSWORD: z.string().optional(),
  GANTRY_ADMIN_EMAIL: z.string().optional(),
  GANTRY_ADMIN_NAME: z.string().optional(),
  GANTRY_NON_ADMIN_CAN_CREATE_PROJECT: bool,
  // Unset: on when GANTRY_TOTP_REQUIRED requires two-factor sign-in of someone, else off.
  GANTRY_TOTP_ENABLED: boolDefault(undefined),
  GANTRY_TOTP_ALLOW_RECOVERY: boolDefault(true),
  // Unset or empty: the admin's setting in the console decides (stored in the database).
  GANTRY_TOTP_REQUIRED: z
    .string()
    .optional()
    .transform((v) => v?.trim().toLowerCase() || undefined)
    .pipe(z.enum(TWO_FACTOR_POLICIES, { error: 'expected off, admins or all' }).optional()),
  // LDAP sign-in does its own multi-factor check: the two-factor policy does not ask LDAP users to set up Gantry's.
  GANTRY_LDAP_OWN_MFA: bool,
  GANTRY_OIDC_PROVIDERS: oidcProvidersEnv,
  GANTRY_PASSWORD_LOGIN_DISABLED: bool,
  GANTRY_LDAP_ENABLED: bool,
  GANTRY_LDAP_STARTTLS: bool,
  ...ldapEnv,
  GANTRY_TRUST_PROXY: trustProxyEnv,
  GANTRY_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  GANTRY_METRICS: bool,
  // The bearer token Prometheus must send; never logged, never repeated in an error message.
  GANTRY_METRICS_TOKEN: optionalText,
  GANTRY_WEB_DIST: z.string().optional(),
  GANTRY_MAX_PARALLEL_TASKS: z.coerce.number().int().min(1).default(10),
  GANTRY_MAX_TASK_LOG_LINES: z.coerce.number().int().min(100).default(5_000_000),
  // Checkouts kept for runs of repositories whose refs have not moved; 0: every run clones.
  GANTRY_CHECKOUT_CACHE_ENTRIES: z.coerce.number().int().min(0).default(32),
  // Memory (MiB) this node lends to log lines the database could not store yet, across all its tasks.
  GANTRY_LOG_RETRY_BUFFER_MB: z.coerce.number().int().min(1).default(64),
  // Largest Terraform/OpenTofu state the HTTP backend accepts in one request (64 MiB).
  GANTRY_MAX_STATE_BYTES: z.coerce.number().int().min(1024).default(64 * 1024 * 1024),
  // Empty or 0: off. Otherwise a daily job deletes the output of tasks older than this.
  GANTRY_TASK_LOG_RETENTION_DAYS: z.union([z.literal('').transform(() => 0), z.coerce.number().int().min(0)]).default(0),
  GANTRY_AUDIT_RETENTION_DAYS: z.union([z.literal('').transform(() => 365), z.coerce.number().int().min(0)]).default(365),
  ...auditExportEnv,
  GANTRY_USE_REMOTE_RUNNER: bool,
  GANTRY_RUNNER_TIMEOUT_SECONDS: z.coerce.number().int().min(5).default(120),
  // Several nodes on one PostgreSQL database: a node silent this long is dead; its tasks are failed.
  GANTRY_NODE_TIMEOUT_SECONDS: z.coerce.number().int().min(2).default(30),
  // How other nodes and admins reach this node (shown on the Cluster page); default host:port.
  GANTRY_NODE_ADDRESS: optionalText,
  // On SIGTERM, running tasks may go on this long before they are stopped (deploy/gantry.service's TimeoutStopSec is longer).
  GANTRY_SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().int().min(0).default(300),
  GANTRY_EMAIL_ALERT: bool,
  GANTRY_EMAIL_HOST: optionalText,
  GANTRY_EMAIL_PORT: z.coerce.number().int().min(1).max(65535).default(25),
  GANTRY_EMAIL_SECURE: bool,
  GANTRY_EMAIL_USERNAME: optionalText,
  GANTRY_EMAIL_PASSWORD: z.string().optional(),
  GANTRY_EMAIL_SENDER: optionalText,
  GANTRY_SLACK_URL: optionalHttpUrl,
  GANTRY_TELEGRAM_TOKEN: optionalText,
  GANTRY_TELEGRAM_CHAT: optionalText,
  GANTRY_TELEGRAM_API: optionalHttpUrl,
  GANTRY_TEAMS_URL: optionalHttpUrl,
  GANTRY_WEBHOOK_URL: optionalHttpUrl,
  PATH: z.string().default('/usr/local/bin:/usr/bin:/bin'),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Where task workspaces live: outside the data folder, so a task's `..` never reaches the key. */
  taskDir: string;
  /** Whether task processes run in a bubblewrap sandbox (see engine/sandbox.ts). */
  taskSandbox: TaskSandboxSetting;
  /**
   * Folders below which repositories may be local paths and file inventories absolute paths
   * (platform/local-paths.ts); empty: none. The data and task folders stay refused regardless.
   */
  allowedLocalPaths: string[];
  /**
   * Hosts (names or IP addresses) the server may fetch user-given URLs from although they are
   * private or local (dynamic parameter options, URL inventories; platform/safe-fetch.ts).
   */
  fetchAllowedHosts: string[];
  /** Whether sandboxed tasks get their own network namespace (GANTRY_TASK_NETWORK). */
  taskNetwork: TaskNetworkSetting;
  /** Who tasks run as when the server is root (GANTRY_TASK_USER; null: nobody). */
  taskUser: string | null;
  /** `sqlite:<file>`, a postgres:// URL or a mysql:// (mariadb://) URL. */
  dbUrl: string;
  secretKey: string | undefined;
  webHost: string;
  admin: { login: string; password?: string; email?: string; name?: string } | undefined;
  nonAdminCanCreateProject: boolean;
  /**
   * Two-factor sign-in with a one-time code; `allowRecovery` lets a recovery code stand in for it;
   * `required` (GANTRY_TOTP_REQUIRED) fixes who must use it, overriding the admin's setting.
   */
  totp: { enabled: boolean; allowRecovery: boolean; required: TwoFactorPolicy | undefined };
  /** GANTRY_LDAP_OWN_MFA: LDAP sessions are exempt from the two-factor policy (the directory checks a second factor). */
  ldapOwnMfa: boolean;
  /** External OpenID Connect sign-in, one button each on the sign-in page. */
  oidcProviders: OidcProviderConfig[];
  /** Sign-in with a password is refused (external providers only); the CLI still manages users. */
  passwordLoginDisabled: boolean;
  /** Sign-in against an LDAP directory (GANTRY_LDAP_*); undefined when off. */
  ldap: LdapConfig | undefined;
  /**
   * Fastify's `trustProxy`: the proxies whose X-Forwarded-For gives the client's address (for the
   * sign-in throttle, sessions, logs); false: the header is ignored; true: any hop is trusted.
   */
  trustProxy: boolean | string[];
  logLevel: string;
  /** GET /metrics (Prometheus text): off unless enabled; with a token, only for `Authorization: Bearer <token>`. */
  metrics: { enabled: boolean; token: string | undefined };
  /** Folder with the built console; served at /. */
  webDist: string;
  version: string;
  /** Tasks this server runs at once, over all projects. */
  maxParallelTasks: number;
  /** Lines of process output kept per task; past it one line says the rest was dropped. */
  maxTaskLogLines: number;
  /** Checkouts this node keeps in `<data dir>/checkouts` (0: none, every run clones). */
  checkoutCacheEntries: number;
  /** Bytes of unstored log lines kept for retry across this node's tasks; past it a task's oldest waiting lines are dropped and counted. */
  logRetryBufferBytes: number;
  /** Largest state body the Terraform/OpenTofu HTTP backend accepts. */
  maxStateBytes: number;
  /** Days a finished task keeps its output (0: forever); the task rows stay. */
  taskLogRetentionDays: number;
  /** Audit entries older than this many days are pruned (0: kept forever). */
  auditRetentionDays: number;
  /** Export of audit entries to a SIEM (GANTRY_AUDIT_EXPORT_*): file, syslog, webhook. */
  auditExport: AuditExportConfig;
  /** Every task goes to a remote runner with a matching tag; off: every task runs in this server. */
  useRemoteRunner: boolean;
  /** A runner silent this long has its running tasks failed. */
  runnerTimeoutSeconds: number;
  nodeTimeoutSeconds: number;
  nodeAddress: string | undefined;
  /** On SIGTERM: how long running tasks may go on to their end before they are stopped. */
  shutdownTimeoutSeconds: number;
  /** PATH given to task processes (the only variable of the server's environment they get). */
  systemPath: string;
  notifications: NotificationsConfig;
}

/** Where task notifications go; a channel left undefined is off. */
export interface NotificationsConfig {
  email?: { host: string; port: number; secure: boolean; username?: string; password?: string; sender: string };
  slackUrl?: string;
  /** `chat` is the default chat; a project's alert_chat overrides it. */
  telegram?: { token: string; chat?: string; api: string };
  teamsUrl?: string;
  webhookUrl?: string;
}

export class ConfigError extends Error {}

/**
 * The only reader of the environment: parses it once and fails with every bad value listed.
 * `version` is the real one by default (package version and commit), so no caller reports another.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, version = VERSION): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const list = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${list}`);
  }
  const e = parsed.data;
  const webHost = e.GANTRY_WEB_HOST.replace(/\/+$/, '');
  const dataDir = path.resolve(e.GANTRY_DATA_DIR);
  const dbUrl = e.GANTRY_DB_URL?.trim() || `sqlite:${path.join(dataDir, 'gantry.sqlite')}`;
  // Beside the data folder by default: ./data -> ./data-tasks.
  const taskDir = path.resolve(e.GANTRY_TASK_DIR ?? path.join(path.dirname(dataDir), `${path.basename(dataDir)}-tasks`));
  if (path.relative(taskDir, dataDir) === '' || !path.relative(taskDir, dataDir).startsWith('..')) {
    throw new ConfigError('Invalid configuration: GANTRY_TASK_DIR must not be the data folder or contain it');
  }
  if (!/^(sqlite:|postgres(ql)?:\/\/|mysql:\/\/|mariadb:\/\/)/.test(dbUrl)) {
    throw new ConfigError('Invalid configuration: GANTRY_DB_URL must start with sqlite:, postgres://, mysql:// or mariadb://');
  }
  // A required second factor turns two-factor sign-in on, unless it was turned off explicitly.
  const totpRequired = e.GANTRY_TOTP_REQUIRED;
  const totpEnabled = e.GANTRY_TOTP_ENABLED ?? (totpRequired !== undefined && totpRequired !== 'off');
  if (!totpEnabled && totpRequired && totpRequired !== 'off') {
    throw new ConfigError('Invalid configuration: GANTRY_TOTP_REQUIRED needs two-factor sign-in; GANTRY_TOTP_ENABLED is false');
  }
  if (e.GANTRY_EMAIL_ALERT && !e.GANTRY_EMAIL_HOST) {
    throw new ConfigError('Invalid configuration: GANTRY_EMAIL_HOST is required when GANTRY_EMAIL_ALERT is on');
  }
  const ldap = toLdapConfig(e);
  if (ldap.problems.length) throw new ConfigError(`Invalid configuration: ${ldap.problems.join('; ')}`);
  const auditExport = toAuditExportConfig(e);
  if (auditExport.problems.length) throw new ConfigError(`Invalid configuration: ${auditExport.problems.join('; ')}`);
  return {
    port: e.GANTRY_PORT,
    host: e.GANTRY_HOST,
    dataDir,
    taskDir,
    taskSandbox: e.GANTRY_TASK_SANDBOX,
    allowedLocalPaths: e.GANTRY_ALLOWED_LOCAL_PATHS,
    fetchAllowedHosts: e.GANTRY_FETCH_ALLOWED_HOSTS,
    taskNetwork: e.GANTRY_TASK_NETWORK,
    taskUser: e.GANTRY_TASK_USER,
    dbUrl,
    secretKey: e.GANTRY_SECRET_KEY || undefined,
    webHost,
    admin: e.GANTRY_ADMIN
      ? {
          login: e.GANTRY_ADMIN,
          password: e.GANTRY_ADMIN_PASSWORD,
          email: e.GANTRY_ADMIN_EMAIL,
          name: e.GANTRY_ADMIN_NAME,
        }
      : undefined,
    nonAdminCanCreateProject: e.GANTRY_NON_ADMIN_CAN_CREATE_PROJECT,
    totp: { enabled: totpEnabled, allowRecovery: e.GANTRY_TOTP_ALLOW_RECOVERY, required: totpRequired },
    ldapOwnMfa: e.GANTRY_LDAP_OWN_MFA,
    oidcProviders: toOidcProviders(e.GANTRY_OIDC_PROVIDERS, webHost),
    passwordLoginDisabled: e.GANTRY_PASSWORD_LOGIN_DISABLED,
    ldap: ldap.config,
    trustProxy: e.GANTRY_TRUST_PROXY,
    logLevel: e.GANTRY_LOG_LEVEL,
    metrics: { enabled: e.GANTRY_METRICS, token: e.GANTRY_METRICS_TOKEN },
    webDist: path.resolve(e.GANTRY_WEB_DIST ?? defaultWebDist()),
    version,
    maxParallelTasks: e.GANTRY_MAX_PARALLEL_TASKS,
    maxTaskLogLines: e.GANTRY_MAX_TASK_LOG_LINES,
    checkoutCacheEntries: e.GANTRY_CHECKOUT_CACHE_ENTRIES,
    logRetryBufferBytes: e.GANTRY_LOG_RETRY_BUFFER_MB * 1024 * 1024,
    maxStateBytes: e.GANTRY_MAX_STATE_BYTES,
    taskLogRetentionDays: e.GANTRY_TASK_LOG_RETENTION_DAYS,
    auditRetentionDays: e.GANTRY_AUDIT_RETENTION_DAYS,
    auditExport: auditExport.config,
    useRemoteRunner: e.GANTRY_USE_REMOTE_RUNNER,
    runnerTimeoutSeconds: e.GANTRY_RUNNER_TIMEOUT_SECONDS,
    nodeTimeoutSeconds: e.GANTRY_NODE_TIMEOUT_SECONDS,
    nodeAddress: e.GANTRY_NODE_ADDRESS,
    shutdownTimeoutSeconds: e.GANTRY_SHUTDOWN_TIMEOUT_SECONDS,
    systemPath: e.PATH,
    notifications: {
      email:
        e.GANTRY_EMAIL_ALERT && e.GANTRY_EMAIL_HOST
          ? {
              host: e.GANTRY_EMAIL_HOST,
              port: e.GANTRY_EMAIL_PORT,
              secure: e.GANTRY_EMAIL_SECURE,
              username: e.GANTRY_EMAIL_USERNAME,
              password: e.GANTRY_EMAIL_PASSWORD || undefined,
              sender: e.GANTRY_EMAIL_SENDER ?? 'gantry@localhost',
            }
          : undefined,
      slackUrl: e.GANTRY_SLACK_URL,
      telegram: e.GANTRY_TELEGRAM_TOKEN
        ? {
            token: e.GANTRY_TELEGRAM_TOKEN,
            chat: e.GANTRY_TELEGRAM_CHAT,
            api: (e.GANTRY_TELEGRAM_API ?? 'https://api.telegram.org').replace(/\/+$/, ''),
          }
        : undefined,
      teamsUrl: e.GANTRY_TEAMS_URL,
      webhookUrl: e.GANTRY_WEBHOOK_URL,
    },
  };
}

function defaultWebDist(): string {
  // dist/config/config.js -> apps/web/dist
  return path.resolve(import.meta.dirname, '../../../web/dist');
}
