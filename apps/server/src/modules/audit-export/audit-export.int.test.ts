import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditExportStatus } from '@gantry/contracts';
import type { AuditExportConfig } from '../../config/audit-export.js';
import { createDb } from '../../db/db.js';
import { systemClock } from '../../platform/clock.js';
import { createProject, engines, signedInUser, useTestApp, type TestContext } from '../../test/harness.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { AuditService } from '../audit/audit.service.js';
import type { AuditExportService } from './audit-export.service.js';
import { auditTrailReader } from './audit-trail-reader.js';
import { createAuditExport, exportSinks } from './create-audit-export.js';
import type { ExportedAuditEntry } from './export-sink.js';
import { selfSignedCert as makeCert } from '../../test/self-signed-cert.js';
import { startHttpCollector, startSyslogReceiver, type HttpDelivery, type Receiver } from './receivers.fixture.js';

/** A self-signed certificate for 127.0.0.1 and localhost in a temp folder of its own. */
function selfSignedCert(): { cert: string; key: string; certFile: string; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-export-tls-'));
  return { ...makeCert(dir), dir };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long receivers stay down in the outage tests (the "a minute": GANTRY_TEST_EXPORT_OUTAGE_MS=60000). */
const OUTAGE_MS = Number(process.env.GANTRY_TEST_EXPORT_OUTAGE_MS ?? 2000);
const FAST = { pollMs: 50, retryBaseMs: 20, retryCapMs: 300, leaseMs: 3000 };
const TOKEN = 'hec-token-0f3a9c';

const noExport: AuditExportConfig = { file: undefined, syslog: undefined, webhook: undefined, maxPending: 100_000 };

/** The JSON entry inside an RFC 5424 message (MSG follows the structured data). */
const syslogEntry = (m: string) => JSON.parse(m.slice(m.indexOf(' {"id":') + 1)) as ExportedAuditEntry;
const jsonEntries = (d: HttpDelivery) => JSON.parse(d.body) as ExportedAuditEntry[];
const splunkEvents = (d: HttpDelivery) =>
  d.body
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as { time: number; host: string; source: string; sourcetype: string; event: ExportedAuditEntry },
    );

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

async function allIds(ctx: TestContext): Promise<number[]> {
  return (await ctx.db.db.selectFrom('audit_entry').select('id').orderBy('id').execute()).map((r) => Number(r.id));
}

/** Records `n` entries straight through the audit service (as any change would). */
async function record(
  ctx: TestContext,
  n: number,
  tag: string,
  audit: AuditService = ctx.app.services.audit,
): Promise<void> {
  for (let i = 0; i < n; i++)
    await audit.record({
      action: 'update',
      objectType: 'setting',
      objectId: `${tag}-${i}`,
      before: { n: i },
      after: { n: i + 1, text: 'ünïcode ✓ "q" ]' },
    });
}

function exporter(
  ctx: TestContext,
  config: Partial<AuditExportConfig>,
  nodeId = 'node-a',
  options: Record<string, number> = {},
  db = ctx.db.db,
): AuditExportService {
  const cfg = { ...noExport, ...config };
  return createAuditExport({
    config: cfg,
    db,
    trail: auditTrailReader(new AuditRepository(db)),
    recorder: ctx.app.services.audit,
    clock: systemClock,
    nodeId,
    log: (level, line) => process.env.EXPORT_DEBUG && process.stderr.write(`[${nodeId}] ${level} ${line}\n`),
    options: { ...FAST, ...options },
    sinks: exportSinks(cfg, nodeId),
  });
}

/** Every id once, in increasing order: the exactly-once check. */
function expectExactlyOnce(got: number[], want: number[], label: string): void {
  expect(got, label).toEqual(want);
}

describe.each(engines)('audit export ($name)', (engine) => {
  const t = useTestApp(engine);
  let cert: ReturnType<typeof selfSignedCert>;
  const receivers: Array<Receiver<unknown>> = [];
  beforeAll(() => {
    cert = selfSignedCert();
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    fs.rmSync(cert.dir, { recursive: true, force: true });
  });
  const fresh = async () => {
    // Each test starts its destinations anew (from the oldest entry kept).
    await t().db.db.deleteFrom('audit_export_cursor').execute();
  };

  it('delivers every entry exactly once, in order, over syslog TCP, TLS and UDP and an HTTPS webhook, across an outage and a restart', async () => {
    await fresh();
    const ctx = t();
    const tcp = await startSyslogReceiver('tcp');
    const tlsR = await startSyslogReceiver('tls', cert);
    const udp = await startSyslogReceiver('udp');
    const hec = await startHttpCollector(cert);
    receivers.push(tcp, tlsR, udp, hec);
    const syslogCfg = (transport: 'tcp' | 'tls' | 'udp', port: number) => ({
      syslog: { transport, host: '127.0.0.1', port, ca: transport === 'tls' ? cert.cert : undefined, facility: 13 },
    });
    const webhook = {
      url: `https://127.0.0.1:${hec.port}/services/collector/event`,
      format: 'splunk' as const,
      token: TOKEN,
      ca: cert.cert,
    };
    const a = exporter(ctx, { ...syslogCfg('tcp', tcp.port), webhook }, 'node-a');
    a.start();
    await record(ctx, 5, 'first');
    const received = () => ({
      tcp: tcp.received.map((m) => syslogEntry(m).id),
      hec: hec.received.flatMap((d) => splunkEvents(d).map((e) => e.event.id)),
    });
    let want = await allIds(ctx);
    await waitFor(
      'the first entries',
      () => received().tcp.length === want.length && received().hec.length === want.length,
    );

    // The receivers go down; entries recorded meanwhile wait in the database.
    await tcp.down();
    await hec.down();
    await record(ctx, 10, 'during');
    await sleep(OUTAGE_MS / 2);
    const status = await a.status();
    expect(status.destinations.map((d) => d.kind).sort()).toEqual(['syslog', 'webhook']);
    for (const d of status.destinations) {
      expect(d.pending, d.kind).toBeGreaterThan(0);
      expect(d.attempts, d.kind).toBeGreaterThan(0);
      expect(d.last_error, d.kind).toMatch(/ECONNREFUSED|reset|closed/);
    }
    // A restart in the middle: the node stops, a new service on the same database takes over.
    await a.stop();
    const b = exporter(ctx, { ...syslogCfg('tcp', tcp.port), webhook }, 'node-a');
    b.start();
    await record(ctx, 5, 'after-restart');
    await sleep(OUTAGE_MS / 2);
    await tcp.up();
    await hec.up();
    want = await allIds(ctx);
    await waitFor(
      'every entry after the outage',
      () => received().tcp.length >= want.length && received().hec.length >= want.length,
    );
    await sleep(300);
    await b.stop();
    expectExactlyOnce(received().tcp, want, 'syslog tcp');
    expectExactlyOnce(received().hec, want, 'splunk hec');
    // The formats: RFC 5424 with octet counting, Splunk's envelope with its token.
    const m = tcp.received[0]!;
    expect(m).toMatch(
      /^<10[89]>1 \d{4}-\d\d-\d\dT[\d:.]+Z \S+ gantry \d+ \S+ \[gantry@32473 id="\d+" hash="[0-9a-f]{64}"/,
    );
    const last = syslogEntry(tcp.received.at(-1)!);
    expect(last).toMatchObject({
      object_type: 'setting',
      after: { text: 'ünïcode ✓ "q" ]' },
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(hec.received.every((d) => d.authorization === `Splunk ${TOKEN}`)).toBe(true);
    const ev = splunkEvents(hec.received[0]!)[0]!;
    expect(ev).toMatchObject({
      source: 'gantry',
      sourcetype: 'gantry:audit',
      host: os.hostname(),
      time: Date.parse(ev.event.time) / 1000,
    });
    const after = (await b.status()).destinations;
    expect(after.every((d) => d.pending === 0 && d.attempts === 0 && d.last_success !== null)).toBe(true);

    // TLS and UDP on their own (one syslog destination per configuration): every entry once.
    await fresh();
    const c = exporter(ctx, syslogCfg('tls', tlsR.port), 'node-a');
    c.start();
    await waitFor('syslog over TLS', () => tlsR.received.length >= want.length);
    await c.stop();
    expectExactlyOnce(
      tlsR.received.map((x) => syslogEntry(x).id),
      want,
      'syslog tls',
    );
    await fresh();
    const u = exporter(ctx, syslogCfg('udp', udp.port), 'node-a');
    u.start();
    await waitFor('syslog over UDP', () => udp.received.length >= want.length);
    await u.stop();
    expectExactlyOnce(
      udp.received.map((x) => syslogEntry(x).id),
      want,
      'syslog udp',
    );
  }, 120_000);

  it('posts generic JSON with a bearer token to a plain-HTTP local receiver, retrying while it answers errors', async () => {
    await fresh();
    const ctx = t();
    let failing = true;
    const hook = await startHttpCollector(undefined, () => (failing ? 503 : 200));
    receivers.push(hook);
    const svc = exporter(ctx, {
      webhook: {
        url: `http://127.0.0.1:${hook.port}/audit?key=in-query`,
        format: 'json',
        token: 'bearer-tok',
        ca: undefined,
      },
    });
    svc.start();
    await record(ctx, 3, 'json');
    await waitFor('a failed attempt', async () => (await svc.status()).destinations[0]!.attempts > 1);
    const st = (await svc.status()).destinations[0]!;
    expect(st).toMatchObject({
      kind: 'webhook',
      format: 'json',
      target: `http://127.0.0.1:${hook.port}/audit`,
      last_error: 'the receiver answered HTTP 503',
    });
    failing = false;
    const want = await allIds(ctx);
    await waitFor('the entries', () => hook.received.flatMap(jsonEntries).length >= want.length);
    await svc.stop();
    expectExactlyOnce(
      hook.received.flatMap(jsonEntries).map((e) => e.id),
      want,
      'webhook json',
    );
    expect(hook.received[0]).toMatchObject({ authorization: 'Bearer bearer-tok', contentType: 'application/json' });
  });

  it('writes JSON lines to a rotating file, and writes nothing twice after a crash between writing and moving the cursor', async () => {
    await fresh();
    const ctx = t();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-export-file-'));
    const file = path.join(dir, 'audit.jsonl');
    const cfg = { file: { path: file, maxBytes: 4000, keep: 2 } };
    const svc = exporter(ctx, cfg, 'node-f', { batchSize: 3 });
    svc.start();
    await record(ctx, 40, 'file');
    const want = await allIds(ctx);
    const lines = () =>
      [`${file}.2`, `${file}.1`, file]
        .filter((f) => fs.existsSync(f))
        .flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean))
        // The line a crash cut short (below) is left out.
        .filter((l) => l !== '{"id":99999,"ti')
        .map((l) => (JSON.parse(l) as ExportedAuditEntry).id);
    await waitFor('the file', () => lines().at(-1) === want.at(-1));
    await svc.stop();
    expect(fs.existsSync(`${file}.1`) && fs.existsSync(`${file}.2`)).toBe(true);
    expect(fs.existsSync(`${file}.3`)).toBe(false);
    for (const f of [file, `${file}.1`, `${file}.2`]) expect(fs.statSync(f).size).toBeLessThanOrEqual(4000);
    // The kept files hold the newest entries, each once, in order, up to the last.
    const kept = lines();
    expectExactlyOnce(kept, want.slice(want.length - kept.length), 'file');
    // A crash after writing, before the cursor moved: the cursor is behind the file, and a
    // crash in the middle of a line left it unfinished.
    fs.appendFileSync(file, '{"id":99999,"ti');
    await ctx.db.db
      .updateTable('audit_export_cursor')
      .set({ last_id: want.at(-5)! })
      .execute();
    await record(ctx, 2, 'file-after');
    const again = exporter(ctx, cfg, 'node-f', { batchSize: 3 });
    again.start();
    const all = await allIds(ctx);
    await waitFor('the new entries', () => lines().at(-1) === all.at(-1));
    await again.stop();
    expect(new Set(lines()).size).toBe(lines().length);
    expect(lines().slice(-3)).toEqual(all.slice(-3));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('skips ahead when a destination falls too far behind or retention pruned what it had not sent, and says how many once', async () => {
    await fresh();
    const ctx = t();
    const hook = await startHttpCollector();
    receivers.push(hook);
    const cfg = {
      webhook: { url: `http://127.0.0.1:${hook.port}/`, format: 'json' as const, token: undefined, ca: undefined },
      maxPending: 5,
    };
    await record(ctx, 20, 'behind');
    const head = (await allIds(ctx)).at(-1)!;
    const svc = exporter(ctx, cfg, 'node-a', { maxPending: 5 });
    svc.start();
    const ids = () => hook.received.flatMap(jsonEntries);
    await waitFor('the skip notice', () => ids().some((e) => e.action === 'export_skipped'));
    await waitFor('the last entries', async () => ids().length >= 3);
    await svc.stop();
    const notice = ids().find((e) => e.action === 'export_skipped')!;
    expect(notice).toMatchObject({
      object_type: 'audit_export',
      object_id: 'webhook',
      auth_kind: 'system',
      after: {
        destination: 'webhook',
        reason: 'pending_limit',
        not_exported: head - 2,
        from_id: 1,
        through_id: head - 2,
      },
    });
    // The newest half of the limit is kept, then the notice follows.
    expect(ids().map((e) => e.id)).toEqual([head - 1, head, notice.id]);
    const st = (await svc.status()).destinations[0]!;
    expect(st).toMatchObject({ not_exported: head - 2, pending: 0 });

    // Retention pruned entries the destination had not sent (its cursor below the chain's anchor).
    await ctx.db.db.updateTable('audit_export_cursor').set({ last_id: 0 }).execute();
    const anchor = notice.id - 1;
    await sql`update audit_chain set anchor_id = ${anchor} where id = 1`.execute(ctx.db.db);
    hook.received.length = 0;
    const again = exporter(ctx, cfg, 'node-a', { maxPending: 1000 });
    again.start();
    // After the skip come the entry after the anchor (the first notice) and the new notice.
    await waitFor('the pruned notice', () => ids().filter((e) => e.action === 'export_skipped').length === 2);
    await again.stop();
    expect(ids().map((e) => e.id)).toEqual([notice.id, notice.id + 1]);
    const pruned = ids().at(-1)!;
    expect(pruned.after).toMatchObject({ reason: 'pruned', not_exported: anchor, through_id: anchor });
    // The anchor was moved by hand here; the chain's real state goes back for the other tests.
    await sql`update audit_chain set anchor_id = 0 where id = 1`.execute(ctx.db.db);
  });
});

describe.each(engines)('audit export status API ($name)', (engine) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-export-api-'));
  const file = path.join(dir, 'audit.jsonl');
  const t = useTestApp(engine, {
    GANTRY_AUDIT_EXPORT_FILE: file,
    // Nothing listens on port 9 here: the webhook fails, and says so.
    GANTRY_AUDIT_EXPORT_WEBHOOK_URL: 'https://127.0.0.1:9/services/collector/event?channel=secret-in-query',
    GANTRY_AUDIT_EXPORT_WEBHOOK_FORMAT: 'splunk',
    GANTRY_AUDIT_EXPORT_WEBHOOK_TOKEN: 'status-api-secret-token',
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('answers admins each destination without secrets; a change reaches the file at once; others get 403', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const p = await createProject(admin);
    const want = await allIds(t());
    await waitFor(
      'the file',
      () => fs.existsSync(file) && fs.readFileSync(file, 'utf8').trim().split('\n').length >= want.length,
      5000,
    );
    const lines = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ExportedAuditEntry);
    expect(lines.find((e) => e.object_type === 'project' && e.object_id === p)).toMatchObject({ action: 'create' });
    await waitFor('the webhook failure', async () => {
      const s = (await admin.get('/api/audit/export')).json<AuditExportStatus>();
      return (s.destinations.find((d) => d.kind === 'webhook')?.attempts ?? 0) > 0;
    });
    const res = await admin.get('/api/audit/export');
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('status-api-secret-token');
    expect(res.body).not.toContain('secret-in-query');
    const s = res.json<AuditExportStatus>();
    expect(s.destinations.find((d) => d.kind === 'file')).toMatchObject({
      target: file,
      format: 'jsonl',
      pending: expect.any(Number),
      last_success: expect.any(String),
    });
    expect(s.destinations.find((d) => d.kind === 'webhook')).toMatchObject({
      key: 'webhook',
      target: 'https://127.0.0.1:9/services/collector/event',
      format: 'splunk',
      last_success: null,
      last_error: expect.stringMatching(/ECONNREFUSED/),
    });
    const member = await signedInUser(t());
    expect((await member.get('/api/audit/export')).statusCode).toBe(403);
  });
});

// Several nodes share PostgreSQL or MySQL only (SQLite has one server).
describe.each(engines.filter((e) => e.name !== 'sqlite'))('audit export from several nodes ($name)', (engine) => {
  const t = useTestApp(engine);

  it('exports each entry once when two nodes record and export at once, and one of them stops half-way', async () => {
    const ctx = t();
    const hook = await startHttpCollector();
    const other = createDb(ctx.config.dbUrl);
    try {
      const otherAudit = new AuditService(new AuditRepository(other.db), systemClock, async () => null);
      const cfg = {
        webhook: { url: `http://127.0.0.1:${hook.port}/`, format: 'json' as const, token: undefined, ca: undefined },
      };
      const a = exporter(ctx, cfg, 'node-a', { batchSize: 4 });
      const b = exporter(ctx, cfg, 'node-b', { batchSize: 4 }, other.db);
      a.start();
      b.start();
      await Promise.all([record(ctx, 20, 'a'), record(ctx, 20, 'b', otherAudit)]);
      await a.stop();
      await Promise.all([record(ctx, 10, 'a2'), record(ctx, 10, 'b2', otherAudit)]);
      const want = await allIds(ctx);
      const got = () => hook.received.flatMap(jsonEntries).map((e) => e.id);
      await waitFor('every entry', () => got().length >= want.length);
      await sleep(300);
      await b.stop();
      expectExactlyOnce(got(), want, 'two nodes');
    } finally {
      await other.close();
      await hook.close();
    }
  });
});
