import { stringify } from 'yaml';
import type { ApiClient } from '../api-client.js';
import type { Row } from './config-file.js';
import { KINDS } from './spec.js';

type Current = Row & { id: number };

/** An environment variable name for a secret's placeholder: GANTRY_SECRET_<KIND>_<NAME>. */
export function secretVariable(kind: string, name: string): string {
  const part = (s: string) =>
    s
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '');
  return `GANTRY_SECRET_${part(kind)}_${part(name)}`;
}

/** A live project in the file format of `gantry apply`: ids as names, secrets as placeholders only. */
export async function exportProject(client: ApiClient, projectId: number): Promise<string> {
  const project = await client.get<Current>(`/project/${projectId}`);
  const base = `/project/${projectId}`;
  const doc: Row = {
    project: {
      name: project.name,
      alert: project.alert,
      ...(project.alert_chat ? { alert_chat: project.alert_chat } : {}),
      max_parallel_tasks: project.max_parallel_tasks,
    },
  };
  const names = new Map<string, Map<number, string>>();
  for (const kind of KINDS) {
    const rows = await client.get<Current[]>(`${base}/${kind.path}`);
    names.set(kind.section, new Map(rows.map((r) => [r.id, String(r[kind.nameField])])));
    const items: Row[] = [];
    for (const row of rows) {
      // A schedule or integration that starts a workflow has no template to name: not exported.
      if ('workflow_id' in row && row.workflow_id) continue;
      const item: Row = {};
      for (const [field, api] of Object.entries(kind.fields)) {
        const v = row[api];
        if (v !== null && v !== undefined && v !== '') item[field] = v;
      }
      for (const [field, [idField, section]] of Object.entries(kind.refs)) {
        const name = names.get(section)?.get(Number(row[idField]));
        if (name !== undefined) item[field] = name;
      }
      for (const [field, [idField, section]] of Object.entries(kind.listRefs ?? {})) {
        const list = Array.isArray(row[idField]) ? (row[idField] as unknown[]) : [];
        const listed = list.map((id) => names.get(section)?.get(Number(id)));
        // One entry is the single reference above already.
        if (list.length > 1 && listed.every((n) => n !== undefined)) item[field] = listed;
      }
      if (kind.section === 'keys') keySecrets(row, item);
      if (kind.section === 'variable_groups') groupFields(row, item);
      items.push(item);
    }
    if (items.length) doc[kind.section] = items;
  }
  const team = await client.get<Current[]>(`${base}/users`);
  if (team.length) doc.team = team.map((m) => ({ user: m.username, role: m.role }));
  return stringify(doc, { lineWidth: 0 });
}

function keySecrets(row: Row, item: Row): void {
  const name = String(row.name);
  const login = (t: string) => String((row[t] as Row | undefined)?.login ?? '');
  if (row.type === 'ssh') item.ssh = { login: login('ssh'), private_key: { env: secretVariable('key', name) } };
  if (row.type === 'login_password')
    item.login_password = { login: login('login_password'), password: { env: secretVariable('key', name) } };
}

function groupFields(row: Row, item: Row): void {
  const parse = (v: unknown) => {
    try {
      return JSON.parse(String(v || '{}')) as unknown;
    } catch {
      return {};
    }
  };
  item.json = parse(row.json);
  item.env = parse(row.env);
  const secrets = (row.secrets ?? []) as Row[];
  item.secrets = secrets.map((s) => ({
    name: s.name,
    type: s.type,
    env: secretVariable('variable_group', `${String(row.name)}_${String(s.name)}`),
  }));
}
