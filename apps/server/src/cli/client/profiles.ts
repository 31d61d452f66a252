import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError } from './cli-error.js';

export interface Profile {
  url: string;
  token: string;
}

interface ConfigFile {
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';

/** The client's environment, read once here: the CLI's only settings outside its flags. */
export interface ClientEnv {
  configDir: string;
  url?: string;
  token?: string;
  profile?: string;
}

export function clientEnv(env: NodeJS.ProcessEnv = process.env): ClientEnv {
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return {
    configDir: path.join(base, 'gantry'),
    url: env.GANTRY_URL || undefined,
    token: env.GANTRY_TOKEN || undefined,
    profile: env.GANTRY_PROFILE || undefined,
  };
}

const configFile = (env: ClientEnv) => path.join(env.configDir, 'config.json');

function readConfig(env: ClientEnv): ConfigFile {
  let text: string;
  try {
    text = fs.readFileSync(configFile(env), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new CliError(`Cannot read ${configFile(env)}: ${(err as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as Partial<ConfigFile>;
    return { profiles: parsed.profiles && typeof parsed.profiles === 'object' ? parsed.profiles : {} };
  } catch {
    throw new CliError(`${configFile(env)} is not valid JSON; fix or remove it`);
  }
}

/**
 * Writes the whole file: the folder 0700, the file 0600 from its creation (a temporary file
 * renamed over the old one), so the tokens are never readable by others, not even for a moment.
 */
function writeConfig(env: ClientEnv, config: ConfigFile): void {
  fs.mkdirSync(env.configDir, { recursive: true, mode: 0o700 });
  fs.chmodSync(env.configDir, 0o700);
  const file = configFile(env);
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    fs.writeSync(fd, `${JSON.stringify(config, null, 2)}\n`);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

export function saveProfile(env: ClientEnv, name: string, profile: Profile): string {
  const config = readConfig(env);
  config.profiles[name] = profile;
  writeConfig(env, config);
  return configFile(env);
}

/** Removes the profile; false when there was none of that name. */
export function removeProfile(env: ClientEnv, name: string): boolean {
  const config = readConfig(env);
  if (!config.profiles[name]) return false;
  delete config.profiles[name];
  writeConfig(env, config);
  return true;
}

/**
 * The server and token to use: GANTRY_URL / GANTRY_TOKEN win over the chosen profile (--profile,
 * else GANTRY_PROFILE, else "default"), each on its own, so a CI job may set just the token.
 */
export function resolveConnection(env: ClientEnv, profileFlag: string | undefined): Profile {
  const name = profileFlag ?? env.profile ?? DEFAULT_PROFILE;
  const stored = env.url && env.token ? undefined : readConfig(env).profiles[name];
  if ((profileFlag || env.profile) && !stored && !(env.url && env.token))
    throw new CliError(`No profile "${name}": run gantry login --profile ${name}`);
  const url = env.url ?? stored?.url;
  const token = env.token ?? stored?.token;
  if (!url || !token)
    throw new CliError('Not logged in: run gantry login --url URL --token-stdin, or set GANTRY_URL and GANTRY_TOKEN');
  return { url: normalizeUrl(url), token };
}

/** The server's base URL without a trailing slash; only http(s). */
export function normalizeUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`Not a URL: ${text}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`The URL must start with http:// or https://: ${text}`);
  url.search = '';
  url.hash = '';
  return url.toString().replace(/\/+$/, '');
}
