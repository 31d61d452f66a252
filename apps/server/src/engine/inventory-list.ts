import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Git } from './git.js';
import { gitEnvironment } from './git-credentials.js';
import { readKnownHosts } from './known-hosts.js';
import type { RepoWithKey } from './ports.js';
import type { ProcessLauncher } from './process.js';
import { isDir } from './sandbox-paths.js';
import { safeReadFile } from './safe-fs.js';
import type { TaskIdentity } from './task-user.js';
import { Workspace } from './workspace.js';

/** One host as `ansible-inventory --list` shows it: its groups (direct and inherited, never `all`) and variables. */
export interface ListedHost {
  name: string;
  groups: string[];
  vars: Record<string, unknown>;
}

export interface ListedInventory {
  hosts: ListedHost[];
  /** Every group but `all` (sorted). */
  groups: string[];
}

/**
 * What is listed: a static text (`static`: INI, `static-yaml`; `url`: the fetched text), or a
 * `file` path read from `repository` at `branch` (a path inside it), or an absolute path on the
 * server (allowed by GANTRY_ALLOWED_LOCAL_PATHS, checked by the caller).
 */
export interface InventoryToList {
  projectId: number;
  type: string;
  inventory: string;
  repository: RepoWithKey | null;
  branch: string | null;
}

export interface InventoryListerDeps {
  launcher: ProcessLauncher;
  workRoot: string;
  knownHostsDir: string;
  systemPath: string;
  /** The task user of a root server, who owns the workspace (as a task's). */
  taskOwner: TaskIdentity | null;
  /** The ansible-inventory program; default `ansible-inventory` on PATH. */
  command?: string;
  timeoutMs?: number;
  maxOutputBytes?: number;
}

export const INVENTORY_LIST_TIMEOUT_MS = 30_000;
export const INVENTORY_LIST_MAX_BYTES = 8 * 1024 * 1024;
const OUTPUT_FILE = 'inventory-list.json';
/** Lines of ansible-inventory's own output kept for the error message. */
const KEPT_LINES = 20;

/** INI or YAML/JSON, judged by the text itself (a URL inventory's text comes with no reliable type). */
export function inventoryFileName(content: string): string {
  const t = content.trimStart();
  if (t.startsWith('{') || t.startsWith('---')) return 'inventory.yml';
  const first = t.split('\n').find((l) => l.trim() && !l.trim().startsWith('#')) ?? '';
  return /^[^\s=[\]]+:\s*(#.*)?$/.test(first.trim()) ? 'inventory.yml' : 'inventory.ini';
}

/** Whether a checkout holds the entry (a link is not followed: the sandboxed process reads it). */
export function lexists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * What ansible reads of an inventory on this machine's disk: the file (or folder) itself and, for a
 * file, the group_vars and host_vars folders beside it.
 */
export function localInventoryPaths(inventory: string): string[] {
  if (isDir(inventory)) return [inventory];
  const dir = path.dirname(inventory);
  return [inventory, ...['group_vars', 'host_vars'].map((d) => path.join(dir, d)).filter(isDir)];
}

/**
 * Lists an inventory's hosts and groups with `ansible-inventory --list`, run as a task's Ansible
 * is: in a fresh workspace of its own (removed afterwards), through the engine's one sandboxed
 * spawn, a repository checked out as a task checks it out. Throws an Error saying what failed.
 */
export class InventoryLister {
  constructor(private readonly d: InventoryListerDeps) {}

  async list(inv: InventoryToList): Promise<ListedInventory> {
    const ws = await Workspace.create(this.d.workRoot, `inventory_${randomUUID()}`, this.d.taskOwner);
    const stops: Array<() => void> = [];
    try {
      let file: string;
      let readable: string[] = [];
      if (inv.type === 'static') file = ws.writeSecretFile('inventory.ini', inv.inventory + '\n');
      else if (inv.type === 'static-yaml') file = ws.writeSecretFile('inventory.yml', inv.inventory + '\n');
      else if (inv.type === 'url') file = ws.writeSecretFile(inventoryFileName(inv.inventory), inv.inventory + '\n');
      else if (inv.type === 'file' && path.isAbsolute(inv.inventory)) {
        file = inv.inventory;
        readable = localInventoryPaths(inv.inventory);
      } else if (inv.type === 'file') {
        if (!inv.repository) throw new Error('The inventory names a file but no repository to read it from');
        const dir = ws.path('repository');
        const knownHosts = ws.writeSecretFile(
          'known_hosts',
          readKnownHosts(path.join(this.d.knownHostsDir, `project_${inv.projectId}`)),
        );
        const access = await gitEnvironment(
          ws,
          'inventory',
          inv.repository.key,
          knownHosts,
          this.d.launcher,
          this.d.systemPath,
        );
        stops.push(() => access.stop());
        const url = inv.repository.row.git_url;
        await new Git(this.d.launcher, () => undefined).checkout({
          url,
          branch: url.startsWith('/') ? null : inv.branch,
          commitHash: null,
          dir,
          cwd: ws.dir,
          env: access.env,
        });
        file = path.resolve(dir, inv.inventory);
        if (path.relative(dir, file).startsWith('..')) throw new Error('Path leaves the repository');
        // Ansible would list a missing source as an empty inventory (with a warning only).
        if (!lexists(file))
          throw new Error(`${inv.inventory} is not in the repository${inv.branch ? ` at branch ${inv.branch}` : ''}`);
      } else {
        throw new Error(`An inventory of type ${inv.type} has no hosts to list`);
      }
      const json = await this.run(ws, file, readable);
      return parseInventoryList(json);
    } finally {
      for (const s of stops) s();
      await ws.remove().catch(() => undefined);
    }
  }

  private async run(ws: Workspace, file: string, readable: string[]): Promise<string> {
    const out = ws.path(OUTPUT_FILE);
    const lines: string[] = [];
    await ws.handOver();
    const proc = this.d.launcher.start(
      {
        command: this.d.command ?? 'ansible-inventory',
        args: ['-i', file, '--list', '--output', out],
        cwd: ws.dir,
        env: {
          LANG: 'C.UTF-8',
          PATH: this.d.systemPath,
          HOME: ws.home,
          ANSIBLE_NOCOLOR: '1',
          // A source no plugin can read fails the listing instead of listing no hosts.
          ANSIBLE_INVENTORY_UNPARSED_FAILED: 'True',
          ANSIBLE_LOCAL_TEMP: ws.path('home', '.ansible-tmp'),
          PYTHONUNBUFFERED: '1',
        },
        sandbox: { writable: [ws.dir], readable },
      },
      (l) => {
        lines.push(l);
        if (lines.length > KEPT_LINES) lines.shift();
      },
    );
    const timeoutMs = this.d.timeoutMs ?? INVENTORY_LIST_TIMEOUT_MS;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      proc.kill('SIGKILL');
    }, timeoutMs);
    const r = await proc.done.finally(() => clearTimeout(timer));
    if (timedOut) throw new Error(`ansible-inventory did not finish within ${Math.round(timeoutMs / 1000)} s`);
    if (r.spawnError) throw new Error(`ansible-inventory could not be started: ${r.spawnError}`);
    if (r.code !== 0) {
      const why = lines
        .filter((l) => /ERROR|WARNING|Failed|failed/.test(l))
        .slice(-3)
        .join(' ')
        .trim();
      throw new Error(`ansible-inventory exited with ${r.code ?? r.signal}${why ? `: ${why.slice(0, 500)}` : ''}`);
    }
    const max = this.d.maxOutputBytes ?? INVENTORY_LIST_MAX_BYTES;
    let buf: Buffer | null;
    try {
      buf = safeReadFile(ws.dir, OUTPUT_FILE, max + 1);
    } catch (e) {
      throw new Error(`The inventory listing could not be read: ${(e as Error).message}`);
    }
    if (!buf) throw new Error('ansible-inventory wrote no listing');
    if (buf.length > max) throw new Error(`The inventory listing is larger than ${max} bytes`);
    return buf.toString('utf8');
  }
}

type GroupEntry = { hosts?: unknown; children?: unknown };

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * Reads `ansible-inventory --list` JSON: `_meta.hostvars`, each group's `hosts` and `children`.
 * A host's groups are the ones listing it and their parents, never `all`.
 */
export function parseInventoryList(json: string): ListedInventory {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch {
    throw new Error('ansible-inventory did not print JSON');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw new Error('ansible-inventory did not print an object');
  const d = doc as Record<string, unknown>;
  const meta = (d._meta ?? {}) as { hostvars?: Record<string, unknown> };
  const hostvars = meta.hostvars && typeof meta.hostvars === 'object' ? meta.hostvars : {};
  const groups = new Map<string, GroupEntry>();
  for (const [name, g] of Object.entries(d))
    if (name !== '_meta' && g && typeof g === 'object') groups.set(name, g as GroupEntry);
  const parents = new Map<string, string[]>();
  for (const [name, g] of groups)
    for (const c of strings(g.children)) parents.set(c, [...(parents.get(c) ?? []), name]);
  const ancestors = (group: string, seen = new Set<string>()): Set<string> => {
    if (seen.has(group)) return seen;
    seen.add(group);
    for (const p of parents.get(group) ?? []) ancestors(p, seen);
    return seen;
  };
  const hostGroups = new Map<string, Set<string>>();
  for (const name of Object.keys(hostvars)) hostGroups.set(name, new Set());
  for (const [name, g] of groups)
    for (const h of strings(g.hosts)) {
      const set = hostGroups.get(h) ?? new Set<string>();
      for (const a of ancestors(name)) set.add(a);
      hostGroups.set(h, set);
    }
  const hosts = [...hostGroups.entries()].map(([name, set]) => {
    const v = hostvars[name];
    return {
      name,
      groups: [...set].filter((g) => g !== 'all').sort(),
      vars: v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {},
    };
  });
  hosts.sort((a, b) => a.name.localeCompare(b.name));
  return { hosts, groups: [...groups.keys()].filter((g) => g !== 'all').sort() };
}
