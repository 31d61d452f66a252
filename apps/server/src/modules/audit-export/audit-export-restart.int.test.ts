import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../../db/db.js';
import { engines } from '../../test/harness.js';
import { waitFor } from '../../test/wait.js';
import type { TestDatabase } from '../../test/engines.js';
import {
  assertServerBuilt,
  signInNode,
  sleep,
  startNode,
  stopNode,
  type ServerNode,
} from '../../test/server-process.js';
import type { ExportedAuditEntry } from './export-sink.js';
import { startHttpCollector, startSyslogReceiver } from './receivers.fixture.js';

// The case on a real server process (the built server: `npm run build` first): every
// entry reaches a local syslog listener and a local HTTP receiver exactly once, although both
// were down for a minute and the server was restarted (SIGTERM) in the middle of it.

/**
 * The outage: a minute and a second on SQLite (the engine every run has); 5 s on the others, whose
 * own part (cursors and leases in their database) does not depend on its length. Any length with
 * GANTRY_TEST_EXPORT_OUTAGE_MS.
 */
const outageFor = (engine: string) => Number(process.env.GANTRY_TEST_EXPORT_OUTAGE_MS ?? (engine === 'sqlite' ? 61_000 : 5_000));
const secret = randomBytes(32).toString('base64');
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});


describe.each(engines.map((e) => [e.name, e] as const))('audit export from a server process (%s)', (name, engine) => {
  const OUTAGE_MS = outageFor(name);
  it(
    'delivers every entry exactly once over syslog TCP and HTTP after the receivers were down for a minute and the server restarted',
    async () => {
      assertServerBuilt();
      const tdb: TestDatabase = await engine.create();
      cleanup.push(() => tdb.drop());
      const reader = createDb(tdb.url);
      cleanup.push(() => reader.close());
      const syslog = await startSyslogReceiver('tcp');
      const hook = await startHttpCollector();
      cleanup.push(
        () => syslog.close(),
        () => hook.close(),
      );
      const fileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-export-proc-'));
      cleanup.push(async () => fs.rmSync(fileDir, { recursive: true, force: true }));
      const file = path.join(fileDir, 'audit.jsonl');
      const env = {
        GANTRY_AUDIT_EXPORT_SYSLOG: `tcp://127.0.0.1:${syslog.port}`,
        GANTRY_AUDIT_EXPORT_WEBHOOK_URL: `http://127.0.0.1:${hook.port}/collect`,
        GANTRY_AUDIT_EXPORT_WEBHOOK_TOKEN: 'process-test-token',
        GANTRY_AUDIT_EXPORT_FILE: file,
      };
      let node: ServerNode = await startNode('export', tdb, secret, env, tdb.dataDir);
      cleanup.push(() => stopNode(node));

      const ids = async () =>
        (await reader.db.selectFrom('audit_entry').select('id').orderBy('id').execute()).map((r) => Number(r.id));
      const got = () => ({
        syslog: syslog.received.map((m) => (JSON.parse(m.slice(m.indexOf(' {"id":') + 1)) as ExportedAuditEntry).id),
        hook: hook.received.flatMap((d) => (JSON.parse(d.body) as ExportedAuditEntry[]).map((e) => e.id)),
        file: fs.existsSync(file)
          ? fs
              .readFileSync(file, 'utf8')
              .trim()
              .split('\n')
              .map((l) => (JSON.parse(l) as ExportedAuditEntry).id)
          : [],
      });
      const changes = async (n: number, tag: string) => {
        const admin = await signInNode(node.base);
        for (let i = 0; i < n; i++)
          expect((await admin.post('/api/projects', { name: `${tag} ${i}` })).statusCode).toBe(201);
      };

      await changes(3, 'before');
      let want = await ids();
      await waitFor(
        'the first entries',
        () => got().syslog.length === want.length && got().hook.length === want.length,
        15_000,
      );

      // Both receivers go away; the server goes on recording, then restarts half-way through.
      await syslog.down();
      await hook.down();
      const outageEnds = Date.now() + OUTAGE_MS;
      await changes(4, 'during');
      await sleep(Math.max(0, OUTAGE_MS / 2 - 2000));
      await stopNode(node);
      node = await startNode('export', tdb, secret, env, tdb.dataDir);
      await changes(4, 'after restart');
      await sleep(Math.max(0, outageEnds - Date.now()));
      expect(got().syslog.length).toBeLessThan((await ids()).length);
      await syslog.up();
      await hook.up();

      want = await ids();
      // The retry delay is at most 30 s.
      await waitFor(
        'every entry',
        () => got().syslog.length >= want.length && got().hook.length >= want.length,
        45_000,
      );
      await sleep(500);
      await stopNode(node);
      const final = got();
      expect(final.syslog).toEqual(want);
      expect(final.hook).toEqual(want);
      expect(final.file).toEqual(want);
      expect(hook.received.every((d) => d.authorization === 'Bearer process-test-token')).toBe(true);
      // The token went nowhere else: not in the server's own output.
      expect(node.output.join('')).not.toContain('process-test-token');
    },
    OUTAGE_MS + 120_000,
  );
});

// Several nodes share PostgreSQL or MySQL only (SQLite has one server).
describe.each(engines.filter((e) => e.name !== 'sqlite').map((e) => [e.name, e] as const))(
  'audit export from two server processes on one database (%s)',
  (_name, engine) => {
    it('exports each entry once while both record changes, and after one of them stops', async () => {
      assertServerBuilt();
      const tdb: TestDatabase = await engine.create();
      cleanup.push(() => tdb.drop());
      const reader = createDb(tdb.url);
      cleanup.push(() => reader.close());
      const hook = await startHttpCollector();
      cleanup.push(() => hook.close());
      const env = { GANTRY_AUDIT_EXPORT_WEBHOOK_URL: `http://127.0.0.1:${hook.port}/collect` };
      const a = await startNode('export-a', tdb, secret, env);
      const b = await startNode('export-b', tdb, secret, env);
      cleanup.push(
        () => stopNode(a),
        () => stopNode(b),
      );
      const ids = async () =>
        (await reader.db.selectFrom('audit_entry').select('id').orderBy('id').execute()).map((r) => Number(r.id));
      const got = () => hook.received.flatMap((d) => (JSON.parse(d.body) as ExportedAuditEntry[]).map((e) => e.id));
      const changes = async (n: ServerNode, count: number, tag: string) => {
        const admin = await signInNode(n.base);
        for (let i = 0; i < count; i++)
          expect((await admin.post('/api/projects', { name: `${tag} ${i}` })).statusCode).toBe(201);
      };
      await Promise.all([changes(a, 6, 'on a'), changes(b, 6, 'on b')]);
      await stopNode(a);
      await changes(b, 4, 'b alone');
      const want = await ids();
      await waitFor('every entry', () => got().length >= want.length, 20_000);
      await sleep(500);
      await stopNode(b);
      expect(got()).toEqual(want);
    }, 90_000);
  },
);
