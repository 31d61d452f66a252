import { z } from 'zod';

/** A server node sharing the database (GET /api/nodes, admin). */
export const clusterNodeSchema = z.object({
  id: z.string(),
  address: z.string(),
  version: z.string(),
  started: z.string(),
  last_heartbeat: z.string(),
  heartbeat_age_seconds: z.number(),
  running_tasks: z.number().int(),
  /** The node that answered this request. */
  self: z.boolean(),
});
export type ClusterNode = z.infer<typeof clusterNodeSchema>;

/** Heartbeats are written this often at most; a node is dead after GANTRY_NODE_TIMEOUT_SECONDS. */
export const NODE_HEARTBEAT_MS = 5_000;
