import { z } from 'zod';

/** GANTRY_TASK_SANDBOX: `auto` uses bubblewrap when it works, `bwrap` requires it, `off` never sandboxes. */
export const TASK_SANDBOX_SETTINGS = ['auto', 'bwrap', 'off'] as const;
export type TaskSandboxSetting = (typeof TASK_SANDBOX_SETTINGS)[number];

/** Whether this server's tasks run sandboxed (admins see it on the Apps page). */
export const sandboxStatusSchema = z.object({
  /** What tasks really get. */
  mode: z.enum(['bwrap', 'off']),
  /** What GANTRY_TASK_SANDBOX asked for. */
  requested: z.enum(TASK_SANDBOX_SETTINGS),
  /** Why tasks are not sandboxed, or which bubblewrap runs them. */
  detail: z.string(),
});
export type SandboxStatus = z.infer<typeof sandboxStatusSchema>;
