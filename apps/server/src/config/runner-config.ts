import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { TaskNetworkSetting, TaskSandboxSetting } from '@gantry/contracts';
import { ConfigError, taskNetworkSetting, taskSandboxSetting, taskUserSetting } from './config.js';

const runnerEnvSchema = z.object({
  GANTRY_RUNNER_SERVER_URL: z.url({ protocol: /^https?$/, error: 'expected the http(s) URL of the Gantry server' }),
  GANTRY_RUNNER_TOKEN: z.string({ error: 'required (shown once when the runner was created)' }).trim().min(1, { error: 'required' }),
  GANTRY_RUNNER_PRIVATE_KEY_FILE: z.string({ error: 'required (a file holding the private key shown at creation)' }).min(1, { error: 'required' }),
  GANTRY_RUNNER_WORK_DIR: z.string().default('./runner-data'),
  GANTRY_RUNNER_POLL_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  // Checkouts kept for runs of repositories whose refs have not moved, as on the server; 0: none.
  GANTRY_CHECKOUT_CACHE_ENTRIES: z.coerce.number().int().min(0).default(32),
  GANTRY_TASK_SANDBOX: taskSandboxSetting,
  GANTRY_TASK_NETWORK: taskNetworkSetting,
  GANTRY_TASK_USER: taskUserSetting,
  PATH: z.string().default('/usr/local/bin:/usr/bin:/bin'),
});

/** What `gantry runner start` needs; read from the environment once, like the server's config. */
export interface RunnerConfig {
  serverUrl: string;
  token: string;
  /** PEM text of the runner's private key (read from the file at start). */
  privateKey: string;
  workDir: string;
  pollMs: number;
  /** Whether task processes run in a bubblewrap sandbox, as on the server. */
  taskSandbox: TaskSandboxSetting;
  /** Whether sandboxed tasks get their own network namespace, as on the server. */
  taskNetwork: TaskNetworkSetting;
  /** Who tasks run as when the runner is root, as on the server. */
  taskUser: string | null;
  /** The private key file, hidden from tasks like the work folder. */
  privateKeyFile: string;
  /** PATH given to task processes. */
  systemPath: string;
  /** Checkouts kept in the work folder (0: none, every run clones). */
  checkoutCacheEntries: number;
}

/** The runner's reader of the environment: fails with every bad value listed. */
export function loadRunnerConfig(env: Record<string, string | undefined> = process.env): RunnerConfig {
  const parsed = runnerEnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(`Invalid runner configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  let privateKey: string;
  try {
    privateKey = fs.readFileSync(e.GANTRY_RUNNER_PRIVATE_KEY_FILE, 'utf8');
  } catch (err) {
    throw new ConfigError(`Invalid runner configuration: GANTRY_RUNNER_PRIVATE_KEY_FILE cannot be read: ${(err as Error).message}`);
  }
  return {
    serverUrl: e.GANTRY_RUNNER_SERVER_URL.replace(/\/+$/, ''),
    token: e.GANTRY_RUNNER_TOKEN,
    privateKey,
    workDir: path.resolve(e.GANTRY_RUNNER_WORK_DIR),
    pollMs: e.GANTRY_RUNNER_POLL_MS,
    checkoutCacheEntries: e.GANTRY_CHECKOUT_CACHE_ENTRIES,
    taskSandbox: e.GANTRY_TASK_SANDBOX,
    taskNetwork: e.GANTRY_TASK_NETWORK,
    taskUser: e.GANTRY_TASK_USER,
    privateKeyFile: path.resolve(e.GANTRY_RUNNER_PRIVATE_KEY_FILE),
    systemPath: e.PATH,
  };
}
