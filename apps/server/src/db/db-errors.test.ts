import { describe, expect, it } from 'vitest';
import { dbFailureOf, describeDbError, markDbFailure } from './db-errors.js';
import { DbHealth } from './db-health.js';

const err = (fields: Record<string, unknown>, message = 'x') => Object.assign(new Error(message), fields);

describe('dbFailureOf', () => {
  it('finds a database that cannot be reached, on every engine', () => {
    for (const e of [
      err({ code: 'ECONNREFUSED' }),
      err({ code: 'ETIMEDOUT' }),
      err({ code: 'ECONNRESET' }),
      err({ code: '57P01' }, 'terminating connection due to administrator command'),
      err({ code: '57P03' }, 'the database system is starting up'),
      err({ code: '08006' }),
      err({ code: '53300' }, 'sorry, too many clients already'),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout'),
      new Error('timeout exceeded when trying to connect'),
      err({ code: 'PROTOCOL_CONNECTION_LOST', fatal: true }),
      err({ code: 'ER_CON_COUNT_ERROR', errno: 1040 }),
      // Node's dual-stack connect, and a driver's wrapper.
      Object.assign(new AggregateError([err({ code: 'ECONNREFUSED' })], 'connect failed')),
      new Error('query failed', { cause: err({ code: 'ECONNRESET' }) }),
    ]) {
      expect(dbFailureOf(e), String(e)).toBe('unavailable');
    }
  });

  it('finds a full database or disk, on every engine', () => {
    for (const e of [
      err({ code: 'SQLITE_FULL' }, 'database or disk is full'),
      err({ code: '53100' }, 'could not extend file "base/16384/2619": No space left on device'),
      err({ code: 'ER_RECORD_FILE_FULL', errno: 1114 }, "The table 'task_output' is full"),
      err({ errno: 1114 }),
      err({ code: 'ER_ERROR_ON_WRITE', errno: 3 }, "Error writing file './ib_logfile0' (Errcode: 28 \"No space left on device\")"),
      err({ code: 'ER_GET_ERRNO', errno: 1030 }, 'Got error 28 "No space left on device" from storage engine InnoDB'),
    ]) {
      expect(dbFailureOf(e), String(e)).toBe('full');
    }
  });

  it('leaves every other failure alone', () => {
    for (const e of [
      new Error('boom'),
      err({ code: '23505' }, 'duplicate key'),
      err({ code: 'SQLITE_CONSTRAINT_UNIQUE' }),
      err({ code: 'SQLITE_IOERR_WRITE' }, 'disk I/O error'),
      err({ code: 'ER_DUP_ENTRY', errno: 1062 }),
      err({ code: '42P01' }, 'relation does not exist'),
      null,
      'text',
    ]) {
      expect(dbFailureOf(e), String(e)).toBeNull();
    }
  });

  it('answers the meaning a context gave an error first', () => {
    const e = err({ code: 'SQLITE_IOERR_WRITE' }, 'disk I/O error');
    markDbFailure(e, 'full');
    expect(dbFailureOf(e)).toBe('full');
  });
});

describe('describeDbError', () => {
  it('gives the code and first line, never the password of the URL', () => {
    const e = err({ code: '28P01' }, 'password authentication failed: s3cr/et!\nDETAIL: more');
    expect(describeDbError(e, 'postgres://gantry:s3cr%2Fet!@db:5432/gantry')).toBe('28P01: password authentication failed: ***');
    expect(describeDbError(new Error('Connection terminated unexpectedly'))).toBe('Connection terminated unexpectedly');
  });
});

describe('DbHealth', () => {
  const full = () => err({ code: 'SQLITE_FULL' });

  it('is full from a failure that says so until a probe finds room', async () => {
    let room = false;
    const health = new DbHealth(async () => {
      if (!room) throw full();
    });
    expect(await health.storage()).toBe('ok');
    health.failed(new Error('other'));
    expect(await health.storage()).toBe('ok');
    health.failed(full());
    expect(await health.storage()).toBe('full');
    expect(await health.storage()).toBe('full');
    room = true;
    expect(await health.storage()).toBe('ok');
  });

  it('does not stay full on a probe refused for another reason', async () => {
    const health = new DbHealth(async () => {
      throw err({ code: '42501' }, 'permission denied for schema public');
    });
    health.failed(full());
    expect(await health.storage()).toBe('ok');
  });
});
