import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cachingStatements } from './sqlite-statement-cache.js';

describe('SQLite statement cache', () => {
  it('prepares a query once and hands the same statement back', () => {
    const raw = new SQLite(':memory:');
    const db = cachingStatements(raw);
    const a = db.prepare('SELECT 1 AS one');
    const b = db.prepare('SELECT 1 AS one');
    expect(b).toBe(a);
    expect(db.prepare('SELECT 2 AS two')).not.toBe(a);
    db.close();
  });

  it('never hands out a statement busy in an iteration, and the iteration goes on unharmed', () => {
    const raw = new SQLite(':memory:');
    raw.exec('CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2), (3);');
    const db = cachingStatements(raw);
    const sql = 'SELECT n FROM t ORDER BY n';
    const outer = db.prepare(sql) as SQLite.Statement;
    const seen: number[] = [];
    for (const row of outer.iterate() as Iterable<{ n: number }>) {
      const inner = db.prepare(sql) as SQLite.Statement;
      expect(inner).not.toBe(outer);
      expect((inner.all() as { n: number }[]).map((r) => r.n)).toEqual([1, 2, 3]);
      seen.push(row.n);
    }
    expect(seen).toEqual([1, 2, 3]);
    // Once the iteration is over the kept statement is handed out again.
    expect(db.prepare(sql)).toBe(outer);
    db.close();
  });

  it('keeps only the most recently used statements', () => {
    const db = cachingStatements(new SQLite(':memory:'), 2);
    const one = db.prepare('SELECT 1');
    db.prepare('SELECT 2');
    db.prepare('SELECT 1');
    db.prepare('SELECT 3');
    // "SELECT 2" was the least recently used: dropped; "SELECT 1" kept.
    expect(db.prepare('SELECT 1')).toBe(one);
    db.close();
  });

  it('answers with the new shape after the schema changes under a kept statement', () => {
    const raw = new SQLite(':memory:');
    raw.exec('CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);');
    const db = cachingStatements(raw);
    expect((db.prepare('SELECT * FROM t') as SQLite.Statement).all()).toEqual([{ a: 1 }]);
    raw.exec("ALTER TABLE t ADD COLUMN b TEXT DEFAULT 'x'");
    expect((db.prepare('SELECT * FROM t') as SQLite.Statement).all()).toEqual([{ a: 1, b: 'x' }]);
    db.close();
  });
});
