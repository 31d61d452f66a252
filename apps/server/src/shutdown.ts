import type { GantryApp } from './app.js';
import type { Db } from './db/db.js';
import { HURRIED_RECORD_WAIT_MS } from './engine/drain.js';

/** After a second signal the process is gone this soon, recorded or not. */
const HARD_EXIT_MS = HURRIED_RECORD_WAIT_MS + 3_000;

/**
 * SIGTERM (systemd's stop, a container's stop) and SIGINT drain the node: no new task is claimed,
 * the API and sockets keep serving while running tasks finish (up to
 * GANTRY_SHUTDOWN_TIMEOUT_SECONDS), what is left is stopped and recorded, the node leaves the
 * cluster, and the process exits 0. A second signal stops the tasks at once (SIGKILL) and exits
 * as soon as they are recorded, within a few seconds whatever the database does.
 */
export function handleShutdownSignals(app: GantryApp, db: Pick<Db, 'close'>, exit: (code: number) => void = (code) => process.exit(code)): void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals === 1) {
      say(`${signal} received: draining (no new task is started here; send it again to stop at once)`);
      void shutdown(app, db).then(
        () => exit(0),
        (e: unknown) => {
          app.log.error(e);
          exit(1);
        },
      );
      return;
    }
    say(`${signal} received again: stopping the running tasks now`);
    app.services.drain.hurry();
    setTimeout(() => {
      say('Exiting before every task could record its end (the next start marks them failed)');
      exit(1);
    }, HARD_EXIT_MS).unref();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

async function shutdown(app: GantryApp, db: Pick<Db, 'close'>): Promise<void> {
  const r = await app.services.drain.run();
  if (r.finished || r.stopped) say(`Tasks: ${r.finished} finished, ${r.stopped} stopped${r.unrecorded ? `, ${r.unrecorded} could not record their end (the next start marks them failed)` : ''}`);
  // Deregistered, so no other node waits GANTRY_NODE_TIMEOUT_SECONDS to find it gone; a database
  // that does not answer now only delays that.
  await app.services.cluster.leave().catch((e: unknown) => app.log.warn({ err: e }, 'could not leave the cluster'));
  await app.close();
  await db.close();
}

function say(line: string): void {
  process.stderr.write(`${line}\n`);
}
