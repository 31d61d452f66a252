/** Prints the message and ends the command with exit code 1. */
export function fail(message: string): never {
  process.stderr.write(`${message.trimEnd()}\n`);
  process.exit(1);
}
