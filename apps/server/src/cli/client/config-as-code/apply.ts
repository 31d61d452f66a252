import { ApiError, type ApiClient } from '../api-client.js';
import { CliError } from '../cli-error.js';
import { isRow, readSecret, type ProjectConfig, type Row, type SecretRef } from './config-file.js';
import { desiredBody, differences, sameValue, type IdMaps } from './mapping.js';
import { KINDS, type KindSpec } from './spec.js';

export interface ApplyOptions {
  dryRun: boolean;
  prune: boolean;
  rotateSecrets: boolean;
}

type Current = Row & { id: number };

/**
 * Brings one project in line with its file: creates what is missing, updates what differs, and
 * (with prune) deletes what the file no longer names. Prints one line per change; answers how
 * many there were. A dry run prints the same lines and writes nothing.
 */
export async function applyConfig(
  client: ApiClient,
  cfg: ProjectConfig,
  opts: ApplyOptions,
  print: (line: string) => void,
): Promise<number> {
  let changes = 0;
  const change = (line: string) => {
    changes++;
    print(line);
  };
  const write = async <T>(what: string, call: () => Promise<T>): Promise<T | undefined> => {
    if (opts.dryRun) return undefined;
    try {
      return await call();
    } catch (err) {
      // The object's name with the API's error: the file says where to look.
      if (err instanceof ApiError) throw new CliError(`${what}: ${err.message}`);
      throw err;
    }
  };

  const projectId = await applyProject(client, cfg, change, write);
  const base = projectId === null ? null : `/project/${projectId}`;
  const ids: IdMaps = new Map();
  const currents = new Map<string, Current[]>();
  const keep = new Set<string>();

  for (const kind of KINDS) {
    const rows = base ? await client.get<Current[]>(`${base}/${kind.path}`) : [];
    currents.set(kind.section, rows);
    ids.set(kind.section, new Map(rows.map((r) => [String(r[kind.nameField]), r.id])));
    const items = cfg.sections.get(kind.section);
    if (!items) continue;
    for (const item of items) {
      const name = String(item[kind.nameField]);
      const where = `${kind.label} ${name}`;
      if (kind.section === 'repositories' && item.ssh_key === 'none' && !ids.get('keys')!.has('none'))
        item.ssh_key = await noneKey(client, base, currents.get('keys')!, ids, keep, change, write);
      const body = desiredBody(kind, item, ids, where);
      const current = rows.find((r) => r[kind.nameField] === name);
      if (!current) {
        change(`+ ${where}`);
        await addSecrets(kind, item, cfg.source, body, null, opts.rotateSecrets);
        const made = await write(where, () => client.request<Current>('POST', `${base}/${kind.path}`, body));
        ids.get(kind.section)!.set(name, made?.id ?? -1);
        continue;
      }
      const diff = differences(kind.section, body, current);
      const secretDiff = await addSecrets(kind, item, cfg.source, body, current, opts.rotateSecrets);
      if (diff.length === 0 && secretDiff.length === 0) continue;
      change(`~ ${where}: ${[...diff, ...secretDiff].join(', ')}`);
      await write(where, () =>
        client.request('PUT', `${base}/${kind.path}/${current.id}`, updateBody(kind, body, current)),
      );
    }
  }

  if (opts.prune && base) {
    // Dependents first: a schedule goes before its template, a template before its inventory.
    for (const kind of [...KINDS].reverse()) {
      const items = cfg.sections.get(kind.section);
      if (!items) continue;
      const named = new Set(items.map((i) => String(i[kind.nameField])));
      for (const row of currents.get(kind.section)!) {
        const name = String(row[kind.nameField]);
        if (named.has(name) || (kind.section === 'keys' && keep.has(name))) continue;
        change(`- ${kind.label} ${name}`);
        await write(`${kind.label} ${name}`, () => client.request('DELETE', `${base}/${kind.path}/${row.id}`));
      }
    }
  }
  await applyTeam(client, cfg, base, opts, change, write);
  return changes;
}

type Change = (line: string) => void;
type Write = <T>(what: string, call: () => Promise<T>) => Promise<T | undefined>;

/** The project by name (created when missing), marked as managed by code. Null: a dry run's new project. */
async function applyProject(
  client: ApiClient,
  cfg: ProjectConfig,
  change: Change,
  write: Write,
): Promise<number | null> {
  const wanted: Row = { ...cfg.project, managed_by_code: true };
  const where = `project ${cfg.project.name}`;
  const projects = await client.get<Current[]>('/projects');
  const found = projects.filter((p) => p.name === cfg.project.name);
  if (found.length > 1) throw new CliError(`Several projects are named "${cfg.project.name}": rename one`);
  let current = found[0];
  if (!current) {
    change(`+ ${where}`);
    const { managed_by_code: _m, ...create } = wanted;
    const made = await write(where, () => client.request<Current>('POST', '/projects', create));
    if (!made) return null;
    current = await client.get<Current>(`/project/${made.id}`);
  }
  const diff = Object.entries(wanted)
    .filter(([k, v]) => !sameValue(k, v, current[k]))
    .map(([k, v]) => `${k} ${JSON.stringify(current[k] ?? null)} -> ${JSON.stringify(v)}`);
  if (diff.length) {
    if (found.length) change(`~ ${where}: ${diff.join(', ')}`);
    const body = {
      name: current.name,
      alert: current.alert,
      alert_chat: current.alert_chat,
      max_parallel_tasks: current.max_parallel_tasks,
      ...wanted,
    };
    await write(where, () => client.request('PUT', `/project/${current.id}`, body));
  }
  return current.id;
}

/** `ssh_key: none` without a key of that name: the project's key of type none, made when missing. */
async function noneKey(
  client: ApiClient,
  base: string | null,
  keys: Current[],
  ids: IdMaps,
  keep: Set<string>,
  change: Change,
  write: Write,
): Promise<string> {
  const existing = keys.find((k) => k.type === 'none');
  const name = existing ? String(existing.name) : 'None';
  keep.add(name);
  if (existing || ids.get('keys')!.has(name)) return name;
  change(`+ key ${name}`);
  const made = await write(`key ${name}`, () =>
    client.request<Current>('POST', `${base}/keys`, { name, type: 'none', override_secret: false }),
  );
  ids.get('keys')!.set(name, made?.id ?? -1);
  return name;
}

/**
 * Puts secrets into the body where they are written: a new key or group, a group's new secret,
 * and with --rotate-secrets every one (a stored secret cannot be read back to compare). Answers
 * the diff text of secrets added, removed or rotated.
 */
async function addSecrets(
  kind: KindSpec,
  item: Row,
  source: string,
  body: Row,
  current: Current | null,
  rotate: boolean,
): Promise<string[]> {
  const where = `${kind.label} ${String(item.name)}`;
  if (kind.section === 'keys') {
    if (current && !rotate) return [];
    for (const [type, field] of [
      ['ssh', 'private_key'],
      ['ssh', 'passphrase'],
      ['login_password', 'password'],
    ] as const) {
      const ref = isRow(item[type]) ? item[type][field] : undefined;
      if (ref && body[type])
        (body[type] as Row)[field] = readSecret(ref as SecretRef, source, `${where}.${type}.${field}`);
    }
    if (current) body.override_secret = true;
    return current ? ['secret rotated'] : [];
  }
  if (kind.section !== 'variable_groups') return [];
  const wanted = (item.secrets ?? []) as Row[];
  const stored = (current?.secrets ?? []) as Current[];
  const ops: Row[] = [];
  const diff: string[] = [];
  for (const s of wanted) {
    const { name, type = 'env', ...ref } = s;
    const have = stored.find((x) => x.name === name);
    if (have && have.type === type && !rotate) continue;
    const secret = readSecret(ref as SecretRef, source, `${where}.secrets[${String(name)}]`);
    ops.push(
      have ? { id: have.id, name, type, secret, operation: 'update' } : { name, type, secret, operation: 'create' },
    );
    diff.push(`secret ${String(name)} ${have ? 'rotated' : 'added'}`);
  }
  for (const have of stored)
    if (!wanted.some((s) => s.name === have.name)) {
      ops.push({ id: have.id, name: have.name, type: have.type, operation: 'delete' });
      diff.push(`secret ${String(have.name)} removed`);
    }
  body.secrets = ops;
  return current ? diff : [];
}

/** A PUT body: the stored object with the file's fields over it (keys and groups send only theirs). */
function updateBody(kind: KindSpec, body: Row, current: Current): Row {
  if (kind.section === 'keys') return { name: current.name, type: current.type, override_secret: false, ...body };
  if (kind.section === 'variable_groups') return { name: current.name, json: current.json, env: current.env, ...body };
  return { ...current, ...body };
}

/** Members by username: added, their role changed, and (with prune) removed. */
async function applyTeam(
  client: ApiClient,
  cfg: ProjectConfig,
  base: string | null,
  opts: ApplyOptions,
  change: Change,
  write: Write,
): Promise<void> {
  const team = cfg.sections.get('team');
  if (!team) return;
  // A project still to be created will have its creator as owner.
  const members = base
    ? await client.get<Current[]>(`${base}/users`)
    : [{ ...(await client.get<Current>('/user')), role: 'owner' }];
  let users: Current[] | null = null;
  for (const m of team) {
    const username = String(m.user);
    const where = `member ${username}`;
    const have = members.find((x) => x.username === username);
    if (have && have.role === m.role) continue;
    if (have) {
      change(`~ ${where}: role ${JSON.stringify(have.role)} -> ${JSON.stringify(m.role)}`);
      await write(where, () => client.request('PUT', `${base}/users/${have.id}`, { role: m.role }));
      continue;
    }
    users ??= await client.get<Current[]>('/users');
    const user = users.find((u) => u.username === username);
    if (!user) throw new CliError(`${where}: no user "${username}"`);
    change(`+ ${where}`);
    await write(where, () => client.request('POST', `${base}/users`, { user_id: user.id, role: m.role }));
  }
  if (!opts.prune) return;
  for (const have of members)
    if (!team.some((m) => m.user === have.username)) {
      change(`- member ${String(have.username)}`);
      await write(`member ${String(have.username)}`, () => client.request('DELETE', `${base}/users/${have.id}`));
    }
}
