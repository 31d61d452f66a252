import { loadRunnerConfig } from '../config/runner-config.js';
import { runnerTaskSandbox } from '../engine/sandbox.js';
import { VERSION } from '../version.js';
import { RunnerAgent } from './agent.js';
import { httpRunnerServer } from './server-client.js';

/** `gantry runner start`: configuration from the environment, then poll until SIGINT/SIGTERM. */
export async function startRunner(): Promise<void> {
  // Keys, known_hosts and workspaces the runner writes are for its own user only.
  process.umask(0o077);
  const config = loadRunnerConfig();
  const say = (m: string) => process.stdout.write(`${new Date().toISOString()} ${m}\n`);
  // GANTRY_TASK_SANDBOX=bwrap refuses to start here when bwrap does not work.
  const sandbox = runnerTaskSandbox(config);
  sandbox.check();
  if (sandbox.warning) say(`WARNING: ${sandbox.warning}`);
  const agent = new RunnerAgent({
    server: httpRunnerServer(config.serverUrl, config.token),
    serverUrl: config.serverUrl,
    privateKey: config.privateKey,
    workDir: config.workDir,
    pollMs: config.pollMs,
    checkoutCacheEntries: config.checkoutCacheEntries,
    systemPath: config.systemPath,
    sandbox,
    log: say,
  });
  const shutdown = async () => {
    say('Stopping: waiting for running tasks to end');
    await agent.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
  agent.start();
  say(`Gantry runner ${VERSION} polling ${config.serverUrl} every ${config.pollMs} ms`);
  // The agent's timers keep the process alive.
  await new Promise<void>(() => undefined);
}
