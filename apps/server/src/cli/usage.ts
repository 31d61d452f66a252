import { CLIENT_USAGE } from './client/client-main.js';

/** `gantry help`: every command, the server's and the client's. */
export const USAGE = `Usage: gantry <command>

  server                                   start the server (default)
  migrate                                  bring the database schema up to date
  user add --login L --name N --email E --password P [--admin]
  user list
  user change-by-login --login L --password P
  user delete --login L
  project export --id N [--out FILE] [--format gantry|semaphore]
                                           write a project backup (no secrets) to FILE or stdout
  project import --file FILE --owner L     restore a backup (Gantry's or Semaphore UI's) as a new project owned by L
  rekey --new-key KEY | --new-key-file F   re-seal every secret with a new master key, all or nothing; run
                                           it with the server stopped. The current key is GANTRY_SECRET_KEY or
                                           <data dir>/secret.key (then replaced by the new key). KEY: 32 bytes in
                                           base64 or a passphrase; a file keeps it out of the shell history
  audit verify                             check the audit trail's hash chain: exits 0 when intact (printing
                                           how many entries), 1 naming the first changed, removed or added entry
  workflow run --project N --workflow W [--as LOGIN] [--wait]
                                           start a run of workflow W of project N (as user LOGIN: its author,
                                           who may then not approve it); a running server drives it. --wait
                                           waits for its end: exit 0 success, 1 failed, 2 stopped
  runner start                             run tasks for a server (GANTRY_RUNNER_SERVER_URL, GANTRY_RUNNER_TOKEN,
                                           GANTRY_RUNNER_PRIVATE_KEY_FILE, GANTRY_RUNNER_WORK_DIR)
  version

${CLIENT_USAGE}`;
