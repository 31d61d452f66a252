const MASK = '**********';

/**
 * Replaces every known secret value in a line; `secrets` longest first masks a secret containing
 * another whole. Used wherever a task's output is stored: the engine's log sink, the runner
 * protocol (lines a remote runner sends) and the remote runner itself.
 */
export function maskSecrets(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const s of secrets) if (s.length >= 3 && out.includes(s)) out = out.split(s).join(MASK);
  return out;
}
