import path from 'node:path';
import type { Config } from '../config/config.js';
import { resolveNodeId } from '../config/node-id.js';
import type { Db } from '../db/db.js';
import { CheckoutCache } from '../engine/checkout-cache.js';
import { TaskOutputRepository } from '../modules/tasks/task-output.repository.js';
import { TasksRepository } from '../modules/tasks/tasks.repository.js';
import { SecretBox } from '../platform/crypto.js';
import { LocalPathPolicy } from '../platform/local-paths.js';
import { EventBus } from '../realtime/bus.js';
import { deriveBusKeys } from '../realtime/bus-auth.js';
import { PgEventBus } from '../realtime/pg-bus.js';

export interface CoreDeps {
  config: Config;
  db: Db;
  secretKey: Buffer;
  /** This server's identity; when absent, the one kept in the data directory. */
  nodeId: string | undefined;
}

export interface Core {
  node: string;
  checkoutCache: CheckoutCache | undefined;
  outputRepo: TaskOutputRepository;
  tasksRepo: TasksRepository;
  bus: EventBus;
  box: SecretBox;
  localPaths: LocalPathPolicy;
}

/** What everything else is built on: this node's identity, the task rows, the event bus, the master key's box. */
export function createCore({ config, db, secretKey, nodeId }: CoreDeps): Core {
  const node = nodeId ?? resolveNodeId(config.dataDir);
  // In the data folder, which no task sees.
  const checkoutCache = CheckoutCache.forNode(path.join(config.dataDir, 'checkouts'), config.checkoutCacheEntries);
  // Several nodes may share a PostgreSQL database: the bus reaches them all. SQLite has one node.
  const outputRepo = new TaskOutputRepository(db);
  const tasksRepo = new TasksRepository(db.db, outputRepo, db.engine);
  const bus: EventBus =
    db.engine === 'postgres'
      ? new PgEventBus({
          url: config.dbUrl,
          nodeId: node,
          // Other roles on the database server can NOTIFY too: messages are signed with a key of their own.
          keys: deriveBusKeys(secretKey),
          readLines: (taskId, fromSeq, toSeq, limit) => outputRepo.page(taskId, { fromSeq, toSeq, limit }),
          readTask: (id) => tasksRepo.findById(id),
          lastSeq: (id) => outputRepo.lastSeq(id),
          onError: (message) => process.stderr.write(`${message}\n`),
          onDrop: ['debug', 'trace'].includes(config.logLevel)
            ? (reason) => process.stderr.write(`bus: dropped a message (${reason})\n`)
            : undefined,
        })
      : new EventBus();
  const box = new SecretBox(secretKey);
  // GANTRY_ALLOWED_LOCAL_PATHS: checked when repositories and inventories are saved and when runs start.
  const localPaths = new LocalPathPolicy({
    allowed: config.allowedLocalPaths,
    dataDir: config.dataDir,
    taskDir: config.taskDir,
  });
  return { node, checkoutCache, outputRepo, tasksRepo, bus, box, localPaths };
}
