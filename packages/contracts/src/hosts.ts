import { z } from 'zod';
import { taskStatusSchema } from './tasks.js';

/** How one host did in one task, from Ansible's PLAY RECAP (a host the recap does not list is not guessed). */
export const hostTaskResultSchema = z.object({
  task_id: z.number().int(),
  template_id: z.number().int(),
  template_name: z.string(),
  /** The task's status. */
  status: taskStatusSchema,
  created: z.string(),
  ok: z.number().int(),
  changed: z.number().int(),
  unreachable: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  rescued: z.number().int(),
  ignored: z.number().int(),
});
export type HostTaskResult = z.infer<typeof hostTaskResultSchema>;

/**
 * A host of one inventory of the project (`GET /api/project/{id}/hosts`), as `ansible-inventory
 * --list` lists it; variables whose names look secret, or that come from a secret, are `"********"`.
 */
export const hostSchema = z.object({
  name: z.string(),
  groups: z.array(z.string()),
  inventory_id: z.number().int(),
  inventory_name: z.string(),
  vars: z.record(z.string(), z.unknown()),
  /** The newest tasks that ran against it, newest first (at most 5). */
  last_tasks: z.array(hostTaskResultSchema),
});
export type Host = z.infer<typeof hostSchema>;

/** The hosts view: every host, and the inventories that could not be listed with why. */
export const hostsListSchema = z.object({
  hosts: z.array(hostSchema),
  errors: z.array(z.object({ inventory_id: z.number().int(), inventory_name: z.string(), error: z.string() })),
});
export type HostsList = z.infer<typeof hostsListSchema>;
