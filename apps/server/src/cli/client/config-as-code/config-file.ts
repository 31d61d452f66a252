import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { CliError } from '../cli-error.js';
import { KINDS } from './spec.js';

export type Row = Record<string, unknown>;

/** A secret's source: an environment variable or a file (relative to the configuration file). */
export type SecretRef = { env: string } | { file: string };

/** One project's configuration, as read from one file. */
export interface ProjectConfig {
  source: string;
  project: Row & { name: string };
  /** Only the sections the file gives: a missing section is not managed (nor pruned). */
  sections: Map<string, Row[]>;
}

const PROJECT_FIELDS = new Set(['name', 'alert', 'alert_chat', 'max_parallel_tasks']);
const TOP = new Set(['project', 'team', ...KINDS.map((k) => k.section)]);

/** The *.yaml / *.yml files of `target` (a file, or a folder's, sorted), parsed and checked. */
export function readConfigs(target: string): ProjectConfig[] {
  let files: string[];
  try {
    files = fs.statSync(target).isDirectory()
      ? fs
          .readdirSync(target)
          .filter((f) => /\.ya?ml$/.test(f))
          .sort()
          .map((f) => path.join(target, f))
      : [target];
  } catch (err) {
    throw new CliError(`Cannot read ${target}: ${(err as Error).message}`);
  }
  if (files.length === 0) throw new CliError(`No *.yaml or *.yml file in ${target}`);
  const configs = files.map((f) => parseConfig(fs.readFileSync(f, 'utf8'), f));
  const names = configs.map((c) => c.project.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new CliError(`Project "${twice}" is in two files`);
  return configs;
}

export function parseConfig(text: string, source: string): ProjectConfig {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new CliError(`${source}: not valid YAML: ${(err as Error).message}`);
  }
  if (!isRow(doc)) throw new CliError(`${source}: must hold a mapping with a project`);
  for (const key of Object.keys(doc)) if (!TOP.has(key)) throw new CliError(`${source}: unknown section "${key}"`);
  const project = doc.project;
  if (!isRow(project) || typeof project.name !== 'string' || !project.name.trim())
    throw new CliError(`${source}: project.name is required`);
  const extra = Object.keys(project).find((k) => !PROJECT_FIELDS.has(k));
  if (extra !== undefined) throw new CliError(`${source}: project: unknown field "${extra}"`);
  const sections = new Map<string, Row[]>();
  for (const section of [...KINDS.map((k) => k.section), 'team']) {
    const items = doc[section];
    if (items === undefined || items === null) continue;
    if (!Array.isArray(items) || !items.every(isRow))
      throw new CliError(`${source}: ${section} must be a list of mappings`);
    const nameField = section === 'views' ? 'title' : section === 'team' ? 'user' : 'name';
    const seen = new Set<string>();
    for (const item of items) {
      const name = item[nameField];
      if (typeof name !== 'string' || !name)
        throw new CliError(`${source}: every ${section} entry needs a ${nameField}`);
      if (seen.has(name)) throw new CliError(`${source}: ${section} names "${name}" twice`);
      seen.add(name);
      if (section === 'team' && Object.keys(item).some((k) => k !== 'user' && k !== 'role'))
        throw new CliError(`${source}: team[${name}]: give only user and role`);
      checkSecrets(section, item, `${source}: ${section}[${name}]`);
    }
    sections.set(section, items);
  }
  return { source, project: project as ProjectConfig['project'], sections };
}

/** Secrets come only as references: an inline value would end up in version control. */
function checkSecrets(section: string, item: Row, where: string): void {
  const fields: [string, unknown][] = [];
  if (section === 'keys') {
    const ssh = isRow(item.ssh) ? item.ssh : {};
    const lp = isRow(item.login_password) ? item.login_password : {};
    fields.push(['ssh.private_key', ssh.private_key], ['ssh.passphrase', ssh.passphrase]);
    fields.push(['login_password.password', lp.password]);
  }
  if (section === 'variable_groups') {
    const secrets = item.secrets ?? [];
    if (!Array.isArray(secrets)) throw new CliError(`${where}.secrets must be a list`);
    for (const s of secrets) {
      if (!isRow(s) || typeof s.name !== 'string') throw new CliError(`${where}.secrets: every entry needs a name`);
      const { name, type: _type, ...ref } = s;
      fields.push([`secrets[${name}]`, ref]);
    }
  }
  for (const [field, value] of fields) {
    if (value === undefined || value === null) continue;
    if (!isSecretRef(value))
      throw new CliError(
        `${where}.${field}: an inline secret is refused; give {env: VARIABLE} or {file: path} instead`,
      );
  }
}

export function isSecretRef(value: unknown): value is SecretRef {
  if (!isRow(value) || Object.keys(value).length !== 1) return false;
  const v = value.env ?? value.file;
  return typeof v === 'string' && v.length > 0;
}

/** The secret a reference points at, read only when it is written. */
export function readSecret(ref: SecretRef, source: string, where: string): string {
  if ('env' in ref) {
    const value = process.env[ref.env];
    if (value === undefined || value === '') throw new CliError(`${where}: environment variable ${ref.env} is not set`);
    return value;
  }
  const file = path.resolve(path.dirname(source), ref.file);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`${where}: cannot read ${ref.file}: ${(err as Error).message}`);
  }
}

export function isRow(v: unknown): v is Row {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
