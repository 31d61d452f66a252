const MASK = '**********';
/** Shorter values are never masked: they would hide ordinary text. */
const MIN_SECRET = 3;
/** A fragment of a secret's base64 inside longer base64 is masked from this length (shorter ones match by chance). */
const MIN_FRAGMENT = 8;

/**
 * What a secret looks like in output besides itself: its base64, whole (standard with padding,
 * URL-safe with and without), and the part of it that any longer base64 containing the secret
 * shows, for each of the three alignments the secret can start at (an `Authorization: Basic`
 * header, a base64'd config file). Characters at a fragment's ends also depend on the bytes
 * around the secret, so they stay; the secret cannot be read back from what does.
 */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const whole = bytes.toString('base64');
  const forms = new Set([whole, whole.replace(/=+$/, ''), urlSafe(whole), urlSafe(whole).replace(/=+$/, '')]);
  for (let offset = 0; offset < 3; offset++) {
    // Encoded after `offset` bytes of anything: character i holds bits 6i..6i+5 of the stream.
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(2)]).toString('base64');
    const fragment = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    if (fragment.length >= MIN_FRAGMENT) {
      forms.add(fragment);
      forms.add(urlSafe(fragment));
    }
  }
  forms.delete(secret);
  return [...forms];
}

const urlSafe = (base64: string) => base64.replace(/\+/g, '-').replace(/\//g, '_');

/** What one list of secrets expands to, kept while the caller keeps the list (callers add to theirs). */
const expanded = new WeakMap<readonly string[], { of: string[]; all: string[] }>();

/** The values and their base64 forms, longest first, so one containing another is masked whole. */
function allForms(secrets: readonly string[]): string[] {
  const known = expanded.get(secrets);
  if (known && known.of.length === secrets.length && known.of.every((s, i) => s === secrets[i])) return known.all;
  const values = secrets.filter((s) => s.length >= MIN_SECRET);
  const all = [...new Set([...values, ...values.flatMap(secretForms)])].sort((a, b) => b.length - a.length);
  expanded.set(secrets, { of: [...secrets], all });
  return all;
}

/**
 * Replaces every known secret value in a line, and its base64 forms (see `secretForms`). Used
 * wherever a task's output is stored: the engine's log sink, the runner protocol (lines a remote
 * runner sends) and the remote runner itself.
 */
export function maskSecrets(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const s of allForms(secrets)) if (out.includes(s)) out = out.split(s).join(MASK);
  return out;
}
