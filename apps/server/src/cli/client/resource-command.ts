import { parseArgs } from 'node:util';
import type { ApiClient } from './api-client.js';
import { CliError } from './cli-error.js';
import { buildBody, readFileArg, readStdin } from './input.js';
import { findProject, parseId } from './lookup.js';
import { parseOutputFormat, printJson, printTable } from './output.js';
import { RESOURCE_VERBS, resourceUrls, type ResourceKind, type ResourceVerb } from './resources.js';

export const RESOURCE_OPTIONS = {
  project: { type: 'string' },
  file: { type: 'string' },
  set: { type: 'string', multiple: true },
  'secret-file': { type: 'string' },
  'secret-stdin': { type: 'boolean' },
  output: { type: 'string' },
  profile: { type: 'string' },
} as const;

type Row = Record<string, unknown>;

/** `gantry <resource> list|get|create|update|delete`: one API call each (update reads the result back). */
export async function resourceCommand(
  kind: ResourceKind,
  verb: string | undefined,
  args: string[],
  connect: (profile?: string) => ApiClient,
): Promise<void> {
  if (!verb || !(RESOURCE_VERBS as readonly string[]).includes(verb))
    throw new CliError(`Usage: gantry ${kind.command} ${[...RESOURCE_VERBS, ...(kind.moreVerbs ?? [])].join('|')} ...`);
  const { values, positionals } = parseArgs({ args, options: RESOURCE_OPTIONS, allowPositionals: true });
  const format = parseOutputFormat(values.output);
  const isKey = kind.command === 'keys';
  if (!isKey && (values['secret-file'] !== undefined || values['secret-stdin']))
    throw new CliError('--secret-file and --secret-stdin are for keys');
  if (values['secret-stdin'] && values.file === '-')
    throw new CliError('Only one of --file - and --secret-stdin can read stdin');
  if (values['secret-stdin'] && values['secret-file'] !== undefined)
    throw new CliError('Give the secret with --secret-file or --secret-stdin, not both');
  if (positionals.length > 1) throw new CliError(`Unexpected argument: ${positionals[1]}`);
  const client = connect(values.profile);

  let projectId: number | null = null;
  if (kind.path !== null) {
    if (!values.project) throw new CliError(`--project is required (its id or name)`);
    projectId = (await findProject(client, values.project)).id;
  } else if (values.project) throw new CliError('--project does not apply to projects');
  const urls = resourceUrls(kind, projectId);
  const show = (row: Row) => (format === 'json' ? printJson(row) : printFields(row));

  switch (verb as ResourceVerb) {
    case 'list': {
      const rows = await client.get<Row[]>(urls.list);
      return format === 'json' ? printJson(rows) : printTable(rows, kind.columns);
    }
    case 'get':
      return show(await client.get<Row>(urls.item(parseId(positionals[0], kind.label))));
    case 'create': {
      const body = await buildBody(values.file, values.set ?? []);
      if (isKey) await addKeySecret(body, values, null);
      return show(await client.request<Row>('POST', urls.create, body));
    }
    case 'update': {
      const id = parseId(positionals[0], kind.label);
      const body = await buildBody(values.file, values.set ?? []);
      if (isKey) await addKeySecret(body, values, await client.get<Row>(urls.item(id)));
      if (Object.keys(body).length === 0) throw new CliError('Nothing to change: give --file and/or --set');
      await client.request('PUT', urls.item(id), body);
      return show(await client.get<Row>(urls.item(id)));
    }
    case 'delete': {
      const id = parseId(positionals[0], kind.label);
      await client.request('DELETE', urls.item(id));
      if (format === 'json') return printJson({ id, deleted: true });
      process.stdout.write(`Deleted ${kind.label} ${id}\n`);
      return;
    }
  }
}

/**
 * Puts the secret of --secret-file / --secret-stdin where the key's type keeps it (an SSH key's
 * private key, a login's password); on update with `override_secret`, keeping the stored login.
 */
async function addKeySecret(
  body: Row,
  values: { 'secret-file'?: string; 'secret-stdin'?: boolean },
  stored: Row | null,
): Promise<void> {
  if (values['secret-file'] === undefined && !values['secret-stdin']) return;
  const raw = values['secret-stdin'] ? await readStdin() : await readFileArg(values['secret-file']!);
  const type = body.type ?? stored?.type;
  if (type !== 'ssh' && type !== 'login_password')
    throw new CliError('A secret needs a key of type ssh or login_password (--set type=...)');
  // A private key keeps its text as is; a password loses the newline a file or `echo` ends it with.
  const field = type === 'ssh' ? 'private_key' : 'password';
  const secret = type === 'ssh' ? raw : raw.replace(/\r?\n$/, '');
  if (!secret.trim()) throw new CliError('The secret is empty');
  const given = (body[type] && typeof body[type] === 'object' ? body[type] : {}) as Row;
  const kept =
    stored && stored.type === type && stored[type] && typeof stored[type] === 'object' ? (stored[type] as Row) : {};
  body[type] = { ...kept, ...given, [field]: secret };
  if (stored) body.override_secret = true;
}

/** One object as `field  value` lines: every field, nested ones as JSON. */
function printFields(row: Row): void {
  const width = Math.max(...Object.keys(row).map((k) => k.length));
  for (const [k, v] of Object.entries(row)) {
    const text = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    process.stdout.write(`${k.padEnd(width)}  ${text}\n`);
  }
}
