/** A failure to report as is (no stack): the message goes to stderr and the command exits 1. */
export class CliError extends Error {}
