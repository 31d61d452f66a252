import fs from 'node:fs';
import { CliError } from './cli-error.js';

/** Everything on stdin, as text (for `--file -`, `--token-stdin`, `--secret-stdin`). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A file's text, or stdin's for `-`. */
export async function readFileArg(file: string): Promise<string> {
  if (file === '-') return readStdin();
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read ${file}: ${(err as Error).message}`);
  }
}

// Fields that hold secrets: never taken from the command line, where ps and shell history see them.
const SECRET_FIELDS = new Set(['password', 'private_key', 'passphrase', 'secret', 'secrets', 'token']);

/**
 * The request body of create/update: the JSON object of --file (or stdin), then each --set
 * `path=value` over it. A dotted path nests (`ssh.login=git`); a value that reads as JSON
 * (numbers, true/false, null, arrays, objects, "quoted") is sent as such, anything else as text.
 */
export async function buildBody(file: string | undefined, sets: string[]): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {};
  if (file !== undefined) {
    const text = await readFileArg(file);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new CliError(`${file === '-' ? 'stdin' : file} is not valid JSON: ${(err as Error).message}`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new CliError(`${file === '-' ? 'stdin' : file} must hold a JSON object`);
    body = parsed as Record<string, unknown>;
  }
  for (const item of sets) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new CliError(`--set takes key=value: ${item}`);
    const keys = item.slice(0, eq).split('.');
    if (keys.some((k) => !k || k === '__proto__' || k === 'constructor' || k === 'prototype'))
      throw new CliError(`--set key is not a field name: ${item}`);
    if (keys.some((k) => SECRET_FIELDS.has(k)))
      throw new CliError(`${item.slice(0, eq)} is a secret: give it in --file (or stdin), never on the command line`);
    setPath(body, keys, parseValue(item.slice(eq + 1)));
  }
  return body;
}

function parseValue(text: string): unknown {
  if (/^(-?\d+(\.\d+)?|true|false|null)$/.test(text) || /^[[{"]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function setPath(target: Record<string, unknown>, keys: string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (!next || typeof next !== 'object' || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

/** `k=v` pairs of --param, in order. */
export function parsePairs(items: string[], flag: string): [string, string][] {
  return items.map((item) => {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new CliError(`${flag} takes key=value: ${item}`);
    return [item.slice(0, eq), item.slice(eq + 1)];
  });
}
