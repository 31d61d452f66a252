import { parseArgs } from 'node:util';
import { ApiClient, ApiError } from './api-client.js';
import { CliError } from './cli-error.js';
import { readStdin } from './input.js';
import { parseOutputFormat, printJson } from './output.js';
import { DEFAULT_PROFILE, normalizeUrl, removeProfile, saveProfile, type ClientEnv } from './profiles.js';

export const LOGIN_OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  'token-stdin': { type: 'boolean' },
  profile: { type: 'string' },
  output: { type: 'string' },
} as const;

/** `gantry login`: checks the token against the server (GET /api/user), then stores the profile. */
export async function loginCommand(args: string[], env: ClientEnv): Promise<void> {
  const { values } = parseArgs({ args, options: LOGIN_OPTIONS });
  const format = parseOutputFormat(values.output);
  if (!values.url) throw new CliError('--url is required');
  if (values.token !== undefined && values['token-stdin'])
    throw new CliError('Give the token with --token or --token-stdin, not both');
  if (values.token !== undefined)
    process.stderr.write(
      'Warning: a token on the command line is visible in ps and shell history; prefer --token-stdin\n',
    );
  const token = (values['token-stdin'] ? await readStdin() : (values.token ?? '')).trim();
  if (!token) throw new CliError('Give the API token with --token-stdin (or --token)');
  const profile = values.profile ?? env.profile ?? DEFAULT_PROFILE;
  const client = new ApiClient({ url: normalizeUrl(values.url), token });
  let user: { username: string; name: string };
  try {
    user = await client.get('/user');
  } catch (err) {
    if (err instanceof ApiError && err.status === 401)
      throw new CliError(`${client.base} refused the token: ${err.message}`);
    throw err;
  }
  const file = saveProfile(env, profile, client.profile);
  if (format === 'json') return printJson({ profile, url: client.base, user });
  process.stdout.write(`Logged in to ${client.base} as ${user.username} (profile ${profile}, saved in ${file})\n`);
}

/** `gantry logout`: forgets the profile here; the token itself stays valid until revoked in the console. */
export function logoutCommand(args: string[], env: ClientEnv): void {
  const { values } = parseArgs({ args, options: { profile: { type: 'string' }, output: { type: 'string' } } });
  const format = parseOutputFormat(values.output);
  const profile = values.profile ?? env.profile ?? DEFAULT_PROFILE;
  const removed = removeProfile(env, profile);
  if (format === 'json') return printJson({ profile, removed });
  if (!removed) throw new CliError(`No profile "${profile}"`);
  process.stdout.write(`Profile ${profile} removed (revoke the token in the console to end it for good)\n`);
}
