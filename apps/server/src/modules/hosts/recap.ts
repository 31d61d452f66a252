import type { TaskHostTable } from '../../db/types.js';

/** How one host did in one Ansible run (a line of PLAY RECAP): a stored row without its task. */
export type RecapCounts = Omit<TaskHostTable, 'task_id' | 'project_id'>;

// Colour codes and other terminal escapes (ANSIBLE_FORCE_COLOR is on for task runs).
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
const LINE =
  /^(\S+)\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)(?:\s+skipped=(\d+))?(?:\s+rescued=(\d+))?(?:\s+ignored=(\d+))?\s*$/;
/** Longest host name kept (the column's size). */
const MAX_HOST = 255;

/**
 * The hosts of the PLAY RECAP sections of a task's log, in order of first appearance; a later
 * recap (a second playbook run) replaces a host's counts. Only lines after a `PLAY RECAP` header
 * count: a host that is not listed there is not guessed.
 */
export function parseRecap(lines: Iterable<string>): RecapCounts[] {
  const hosts = new Map<string, RecapCounts>();
  let inRecap = false;
  for (const raw of lines) {
    const line = raw.replace(ANSI, '').trim();
    if (/^PLAY RECAP\b/.test(line)) {
      inRecap = true;
      continue;
    }
    if (!inRecap) continue;
    const m = LINE.exec(line);
    if (!m) {
      // The recap ends at the first line that is not a host's (an empty one, a timestamp, our notes).
      if (line) inRecap = false;
      continue;
    }
    const host = m[1]!;
    if (host.length > MAX_HOST) continue;
    const n = (i: number) => Number(m[i] ?? 0);
    hosts.set(host, {
      host,
      ok: n(2),
      changed: n(3),
      unreachable: n(4),
      failed: n(5),
      skipped: n(6),
      rescued: n(7),
      ignored: n(8),
    });
  }
  return [...hosts.values()];
}
