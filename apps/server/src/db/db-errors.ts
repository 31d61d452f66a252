/**
 * What a failed query means for the caller, whatever the engine: the database cannot be reached
 * now (`unavailable`: answer 503 and let the client retry), or it or its disk is full (`full`:
 * answer 507; reads may still work). Anything else is a failure of its own (null).
 */
export type DbFailure = 'unavailable' | 'full';

/** Node's socket errors: the database's host refused, dropped or never answered the connection. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
]);

/**
 * PostgreSQL's SQLSTATEs for a server going away or not taking connections: admin_shutdown (a
 * restart, `pg_terminate_backend`), crash_shutdown, cannot_connect_now (starting up, in recovery),
 * too_many_connections; the whole connection exception class 08 is matched by prefix.
 */
const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300']);

/** pg's own errors when a connection ends or cannot be had; they carry no code. */
const PG_CLIENT_TEXTS = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/** mysql2's and MySQL/MariaDB's codes for a lost, refused or killed connection. */
const MYSQL_UNAVAILABLE = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_NORMAL_SHUTDOWN',
  'ER_CLIENT_INTERACTION_TIMEOUT',
  'CR_SERVER_GONE_ERROR',
  'CR_SERVER_LOST',
  'CR_CONNECTION_ERROR',
  'CR_CONN_HOST_ERROR',
]);

/** MySQL/MariaDB: a table or tablespace that cannot grow, the disk full. */
const MYSQL_FULL = new Set(['ER_RECORD_FILE_FULL', 'ER_DISK_FULL', 'ER_DISK_FULL_NOWAIT']);
/** MySQL/MariaDB wrap the OS's errno 28 (ENOSPC) into a generic write error's text. */
const ENOSPC_TEXT = /\b(errno|Errcode|error):? 28\b|No space left on device/i;

const MARK = Symbol.for('gantry.dbFailure');

/**
 * Tags an error with its meaning when only its context tells (SQLite's "disk I/O error" is a full
 * disk only when the disk has no room left): dbFailureOf answers the tag first.
 */
export function markDbFailure(err: unknown, failure: DbFailure): void {
  if (err && typeof err === 'object') Object.defineProperty(err, MARK, { value: failure, configurable: true });
}

/** The meaning of a database error (also one wrapped in `cause` or an AggregateError), or null. */
export function dbFailureOf(err: unknown, depth = 0): DbFailure | null {
  if (!err || typeof err !== 'object' || depth > 3) return null;
  const marked = (err as { [MARK]?: DbFailure })[MARK];
  if (marked) return marked;
  const { code, errno, message } = err as { code?: unknown; errno?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || PG_UNAVAILABLE.has(code) || MYSQL_UNAVAILABLE.has(code)) return 'unavailable';
    // PostgreSQL's class 08 (connection exception); SQLSTATEs are five characters.
    if (/^08[0-9A-Z]{3}$/.test(code)) return 'unavailable';
    // Class 53, insufficient resources: disk_full (53100), out_of_memory, configuration_limit_exceeded.
    if (/^53[0-9A-Z]{3}$/.test(code)) return 'full';
    if (code === 'SQLITE_FULL' || MYSQL_FULL.has(code)) return 'full';
    if (code.startsWith('ER_') && ENOSPC_TEXT.test(text)) return 'full';
  }
  // mysql2 keeps the server's number in errno: 1114 is ER_RECORD_FILE_FULL, 1021 ER_DISK_FULL.
  if (errno === 1114 || errno === 1021) return 'full';
  if (code === undefined && PG_CLIENT_TEXTS.some((t) => text.startsWith(t))) return 'unavailable';
  const nested = [(err as { cause?: unknown }).cause, ...((err as { errors?: unknown[] }).errors ?? [])];
  for (const inner of nested) {
    const failure = dbFailureOf(inner, depth + 1);
    if (failure) return failure;
  }
  return null;
}

/**
 * A database error as one log line: its code and first line of text, with the URL's password
 * (should a driver ever repeat it) blotted out.
 */
export function describeDbError(err: unknown, url?: string): string {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  let text = `${typeof code === 'string' ? `${code}: ` : ''}${typeof message === 'string' ? message.split('\n')[0] : String(err)}`;
  const password = url ? passwordOf(url) : '';
  if (password) text = text.split(password).join('***').split(encodeURIComponent(password)).join('***');
  return text;
}

function passwordOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}
