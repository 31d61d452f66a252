import fs from 'node:fs';
import path from 'node:path';
import { taskWorkspaceStore } from './workspace.js';

export interface LeftoverDeps {
  /** GANTRY_TASK_DIR: this node's task folders (`task_<id>`). */
  workRoot: string;
  /** Of these task ids, the ones another node or a runner may be running now: their folders stay. */
  activeElsewhere(taskIds: number[]): Promise<Set<number>>;
  /** A task this process runs now (claimed since it started). */
  runningHere(taskId: number): boolean;
  /** Where processes are listed (tests). */
  procRoot?: string;
}

/**
 * At start-up: what runs of an earlier life of this server left behind — each task folder of a
 * task that no process runs any more (key files, password files, the checkout) and any ssh-agent
 * still holding one of their keys. Runs end by removing their own folder; only a crash, a kill -9
 * or a power cut leaves one. Answers how many folders and agents went.
 */
export async function removeLeftovers(d: LeftoverDeps): Promise<{ folders: number; agents: number }> {
  const store = taskWorkspaceStore(d.workRoot);
  const found = store.taskIds().filter((id) => !d.runningHere(id));
  if (found.length === 0) return { folders: 0, agents: 0 };
  const elsewhere = await d.activeElsewhere(found);
  const gone = found.filter((id) => !elsewhere.has(id) && !d.runningHere(id));
  const agents = killAgents(
    gone.map((id) => path.join(d.workRoot, `task_${id}`, 'secrets') + path.sep),
    d.procRoot ?? '/proc',
  );
  for (const id of gone) {
    // fs.rm removes links as links: nothing a task left in its folder is followed.
    store.remove(id);
    fs.rmSync(path.join(d.workRoot, '.relay', `task_${id}.sock`), { force: true });
  }
  return { folders: gone.length, agents };
}

/**
 * Kills the ssh-agents (and the sandboxes around them) serving a socket in one of `secretDirs`:
 * found by their command line, an `ssh-agent` with its socket there, so nothing else is touched
 * and no file a task could have written (a pid file) is believed.
 */
function killAgents(secretDirs: string[], procRoot: string): number {
  let names: string[];
  try {
    names = fs.readdirSync(procRoot);
  } catch {
    return 0;
  }
  let killed = 0;
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let argv: string[];
    try {
      argv = fs.readFileSync(path.join(procRoot, name, 'cmdline'), 'utf8').split('\0');
    } catch {
      continue;
    }
    const agent = argv.some((a) => path.basename(a) === 'ssh-agent');
    const socket = argv.some((a) => a.endsWith('.agent.sock') && secretDirs.some((dir) => a.startsWith(dir) && !a.slice(dir.length).includes('/')));
    if (!agent || !socket) continue;
    try {
      process.kill(Number(name), 'SIGKILL');
      killed += 1;
    } catch {
      // Gone meanwhile, or not ours to signal.
    }
  }
  return killed;
}
