import fs from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../test/engines.js';
import type { TestDatabase } from '../test/engines.js';
import { createDb, type Db } from './db.js';
import { withDeferredCheckpoint } from './sqlite-checkpoint.js';

describe.each(engines)('a large write with the checkpoint deferred ($name)', (engine) => {
  let database: TestDatabase;
  let d: Db;
  beforeAll(async () => {
    database = await engine.create();
    d = createDb(database.url);
    await sql`CREATE TABLE big (id integer PRIMARY KEY, body text NOT NULL)`.execute(d.db);
  });
  afterAll(async () => {
    await d.db.destroy();
    await database.drop();
  });

  const setting = async () =>
    Number(
      (await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(d.db)).rows[0]!.wal_autocheckpoint,
    );
  /** A transaction writing a few megabytes (several times SQLite's 1000-page checkpoint threshold). */
  const write = (first: number) =>
    d.db.transaction().execute(async (trx) => {
      for (let i = first; i < first + 800; i++)
        await sql`INSERT INTO big (id, body) VALUES (${i}, ${'x'.repeat(8000)})`.execute(trx);
    });

  it('holds the automatic checkpoint back during the work, checkpoints after and restores the setting', async () => {
    if (d.engine !== 'sqlite') {
      // Nothing to hold back elsewhere: the work just runs.
      expect(await withDeferredCheckpoint(d.db, async () => 'done')).toBe('done');
      return;
    }
    await sql`PRAGMA wal_autocheckpoint = 700`.execute(d.db);
    const seen: number[] = [];
    const one = withDeferredCheckpoint(d.db, async () => {
      seen.push(await setting());
      await write(1);
      return 'one';
    });
    // Overlapping writes share the hold: the setting comes back once both are done.
    const two = withDeferredCheckpoint(d.db, async () => {
      await write(10_000);
      seen.push(await setting());
      return 'two';
    });
    expect(await Promise.all([one, two])).toEqual(['one', 'two']);
    expect(seen).toEqual([0, 0]);
    expect(await setting()).toBe(700);
    // The log was copied into the database file by the deferred checkpoint (not left in the WAL).
    expect(fs.statSync(database.url.slice('sqlite:'.length)).size).toBeGreaterThan(12_000_000);

    // A failing write: the error is the caller's, the setting comes back all the same.
    await expect(
      withDeferredCheckpoint(d.db, async () => {
        await write(20_000);
        throw new Error('half-way');
      }),
    ).rejects.toThrow('half-way');
    expect(await setting()).toBe(700);
  });
});
