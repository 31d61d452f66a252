import { VERSION } from '../version.js';
import { clientCommand } from './client/client-main.js';
import { fail } from './fail.js';
import { USAGE } from './usage.js';

// Only what every command needs is imported up front: the server's modules (1 s or more to load)
// are loaded by the commands that use them, so the client commands answer quickly.

/** Command-line entry: `gantry server | migrate | user ...`. Exits non-zero with a message on error. */
export async function main(argv: string[]): Promise<void> {
  const [command = 'server', sub, ...rest] = argv;
  try {
    if (command === 'server') return await (await import('../server.js')).startServer();
    if (command === 'version') return void process.stdout.write(`${VERSION}\n`);
    if (command === 'help' || command === '--help' || command === '-h') return void process.stdout.write(USAGE);
    // The client commands (plural nouns, login, run, completion) talk to a server over its API.
    const clientCode = await clientCommand(command, argv.slice(1));
    if (clientCode !== undefined) {
      if (clientCode !== 0) process.exit(clientCode);
      return;
    }
    const admin = () => import('./admin-commands.js');
    if (command === 'migrate') return await (await admin()).migrateCommand();
    if (command === 'user' && sub) return await (await admin()).userCommand(sub, rest);
    if (command === 'project' && sub) return await (await admin()).projectCommand(sub, rest);
    if (command === 'workflow' && sub === 'run') return await (await admin()).workflowRunCommand(rest);
    if (command === 'runner' && sub === 'start') return await (await import('../remote-runner/start.js')).startRunner();
    if (command === 'rekey') return await (await admin()).rekeyCommand(argv.slice(1));
    if (command === 'audit') {
      const code = await (await import('./audit-command.js')).auditCommand(sub);
      if (code !== 0) process.exit(code);
      return;
    }
    fail(`Unknown command: ${argv.join(' ')}\n\n${USAGE}`);
  } catch (err) {
    // zod is loaded only when a command failed (its check errors say which field, in the user's words).
    const { ZodError } = await import('zod');
    fail(
      err instanceof ZodError
        ? (err.issues[0]?.message ?? 'Invalid input')
        : err instanceof Error
          ? err.message
          : String(err),
    );
  }
}
