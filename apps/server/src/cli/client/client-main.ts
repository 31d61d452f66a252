import { ApiClient } from './api-client.js';
import { completionScript } from './completion.js';
import { applyCommand, exportCommand } from './config-as-code/config-command.js';
import { loginCommand, logoutCommand } from './login-command.js';
import { clientEnv, resolveConnection } from './profiles.js';
import { resourceCommand } from './resource-command.js';
import { findResource } from './resources.js';
import { runCommand } from './run-command.js';
import { workflowRunCommand } from './workflow-run-command.js';

export { CliError } from './cli-error.js';

export const CLIENT_USAGE = `Client commands (any Gantry over HTTP(S), with an API token):
  login --url URL --token-stdin [--profile P]
                                           check the token and store the profile (~/.config/gantry,
                                           mode 0600); GANTRY_URL/GANTRY_TOKEN override it, --profile
                                           or GANTRY_PROFILE pick one
  logout [--profile P]
  projects|templates|inventories|keys|variable-groups|schedules|repositories|workflows
           list|get ID|create|update ID|delete ID [--project P] [--file F|-] [--set k=v ...]
                                           P: project id or name (all but projects); keys take their
                                           secret from --secret-file F or --secret-stdin only
  run PROJECT/TEMPLATE [--param k=v ...] [--limit L] [--branch B] [--message M] [--follow]
                                           start a task; --follow streams its log and exits 0 on
                                           success, 1 on failure, 2 when stopped or rejected
  workflows run PROJECT/WORKFLOW [--follow]
                                           start a workflow run; --follow prints each node's status,
                                           tries and tasks as they change, and exits 0 on success, 1
                                           on failure (a rejected approval fails the run), 2 when stopped
  apply -f FILE|DIR [--dry-run] [--prune] [--rotate-secrets]
                                           make projects match YAML files (configuration as code);
                                           --dry-run prints the changes only
  export --project P --format yaml [--out FILE]
                                           write a project as such a file (secrets as placeholders)
  completion bash|zsh|fish                 print a shell completion script
  Every client command takes --output json and --profile P.
`;

/**
 * Runs a client command when `command` is one; undefined when it is not (the server-side
 * commands go on), else the exit code.
 */
export async function clientCommand(command: string, rest: string[]): Promise<number | undefined> {
  const env = clientEnv();
  const connect = (profile?: string) => new ApiClient(resolveConnection(env, profile));
  const kind = findResource(command);
  if (command === 'login') await loginCommand(rest, env);
  else if (command === 'logout') logoutCommand(rest, env);
  else if (command === 'run') return runCommand(rest, connect);
  else if (command === 'apply') return applyCommand(rest, connect);
  else if (command === 'export') return exportCommand(rest, connect);
  else if (command === 'completion') process.stdout.write(completionScript(rest[0]));
  else if (command === 'workflows' && rest[0] === 'run') return workflowRunCommand(rest.slice(1), connect);
  else if (kind) await resourceCommand(kind, rest[0], rest.slice(1), connect);
  else return undefined;
  return 0;
}
