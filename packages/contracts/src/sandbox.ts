import { z } from 'zod';

/** GANTRY_TASK_SANDBOX: `auto` uses bubblewrap when it works, `bwrap` requires it, `off` never sandboxes. */
export const TASK_SANDBOX_SETTINGS = ['auto', 'bwrap', 'off'] as const;
export type TaskSandboxSetting = (typeof TASK_SANDBOX_SETTINGS)[number];

/**
 * GANTRY_TASK_NETWORK: `isolated` (default) gives each sandboxed task its own network namespace
 * that reaches outside hosts but none of the Gantry host's loopback services; `host` shares the
 * server's network (every service on the host's 127.0.0.1 becomes reachable by tasks).
 */
export const TASK_NETWORK_SETTINGS = ['isolated', 'host'] as const;
export type TaskNetworkSetting = (typeof TASK_NETWORK_SETTINGS)[number];

/** What a probe process, started exactly as a task is, measured about itself. */
export const sandboxProbeSchema = z.object({
  /** Its effective user id on the host (never 0 for a task). */
  uid: z.number().int().nullable(),
  /** The user's name when the host knows it. */
  user: z.string().nullable(),
  /** Its effective capability set (hex, as /proc/self/status shows it); all zeroes means none. */
  capabilities: z.string().nullable(),
  /** Its bounding set: what it could ever regain (all zeroes means nothing). */
  bounding: z.string().nullable(),
  /**
   * Its network: `isolated` (own namespace, outside hosts reachable, host loopback not),
   * `loopback-only` (own namespace without any way out: slirp4netns is missing) or `host`.
   */
  network: z.enum(['isolated', 'loopback-only', 'host']).nullable(),
  /** Why the probe could not run, when it could not. */
  error: z.string().nullable(),
});
export type SandboxProbe = z.infer<typeof sandboxProbeSchema>;

/** Whether this server's tasks run sandboxed (admins see it on the Apps page). */
export const sandboxStatusSchema = z.object({
  /** What tasks really get. */
  mode: z.enum(['bwrap', 'off']),
  /** What GANTRY_TASK_SANDBOX asked for. */
  requested: z.enum(TASK_SANDBOX_SETTINGS),
  /** Why tasks are not sandboxed, or which bubblewrap runs them. */
  detail: z.string(),
  /** What GANTRY_TASK_NETWORK asked for. */
  network_requested: z.enum(TASK_NETWORK_SETTINGS).optional(),
  /** The user the server itself runs as (uid 0 means root). */
  server_uid: z.number().int().nullable().optional(),
  /** Measured in a probe process started exactly as a task is (absent in quick status reads). */
  probe: sandboxProbeSchema.optional(),
});
export type SandboxStatus = z.infer<typeof sandboxStatusSchema>;
