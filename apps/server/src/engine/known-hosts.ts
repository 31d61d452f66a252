import fs from 'node:fs';
import path from 'node:path';

/** A known_hosts copy the task wrote is read up to this size; the rest is ignored. */
const MAX_KNOWN_HOSTS_BYTES = 1024 * 1024;

/**
 * One plain host-key line: hosts (names, [name]:port or a hashed |1|... entry), a key type and a
 * base64 key, optionally a comment. No marker (`@cert-authority`, `@revoked`): those change what
 * is trusted for every host, and a task must not decide that for the next one.
 */
const PLAIN_LINE = /^(?!@)[^\s#]+\s+(ssh-(rsa|dss|ed25519|ed448)|ecdsa-sha2-nistp(256|384|521)|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)\s+[A-Za-z0-9+/]+={0,3}(\s+[^\r\n]*)?$/;

/** The project's known_hosts text, or '' when it has none (a missing file, or anything but a regular file). */
export function readKnownHosts(file: string): string {
  try {
    const st = fs.lstatSync(file);
    return st.isFile() ? fs.readFileSync(file, 'utf8') : '';
  } catch {
    return '';
  }
}

/**
 * After a run: the host keys ssh learned in the task's copy (`copy`, inside its workspace) are
 * added to the project's file, but only as plain lines, and the copy is read without following
 * a link (the task may have replaced it or its folder with one).
 */
export function mergeKnownHosts(workspaceDir: string, copy: string, projectFile: string): number {
  const text = readCopy(workspaceDir, copy);
  if (text === null) return 0;
  const known = new Set(readKnownHosts(projectFile).split('\n').map((l) => l.trim()));
  const added = [...new Set(text.split('\n').map((l) => l.trim()))].filter((l) => !known.has(l) && PLAIN_LINE.test(l));
  if (added.length === 0) return 0;
  fs.appendFileSync(projectFile, `${added.join('\n')}\n`, { mode: 0o600 });
  return added.length;
}

/** The copy's text when it is still a regular file in a real folder of the workspace; null otherwise. */
function readCopy(workspaceDir: string, copy: string): string | null {
  let fd: number;
  try {
    const dir = fs.realpathSync(path.dirname(copy));
    const root = fs.realpathSync(workspaceDir);
    if (dir !== path.resolve(root, path.relative(workspaceDir, path.dirname(copy)))) return null;
    fd = fs.openSync(copy, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return null;
    const buf = Buffer.alloc(Math.min(st.size, MAX_KNOWN_HOSTS_BYTES));
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}
