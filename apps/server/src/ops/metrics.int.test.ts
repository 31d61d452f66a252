import { describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp } from '../test/harness.js';
import { runTask, setupTemplate, waitForTask } from '../test/tasks.js';

const TOKEN = 'scrape-token-0123456789';

describe.each(engines)('GET /metrics ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_METRICS: 'true', GANTRY_METRICS_TOKEN: TOKEN });
  const scrape = async (): Promise<Exposition> => {
    const res = await t().app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(res.body);
  };

  it('answers only with the token, whatever else the caller holds', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    for (const headers of [
      {},
      { authorization: 'Bearer wrong' },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Basic ${TOKEN}` },
    ]) {
      const res = await ctx.app.inject({ url: '/metrics', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'A valid metrics token is required', code: 'metrics_token_required' });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
    // A signed-in admin's session is not a scrape token.
    expect((await admin.get('/metrics')).statusCode).toBe(401);
    expect((await ctx.app.inject({ url: '/metrics/', headers: { authorization: `bearer ${TOKEN}` } })).statusCode).toBe(
      200,
    );
    // Not under /api.
    expect(
      (await ctx.app.inject({ url: '/api/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode,
    ).not.toBe(200);
  });

  it('serves valid Prometheus text with every family', async () => {
    const e = await scrape();
    expect(Object.fromEntries([...e.types].filter(([n]) => n.startsWith('gantry_')))).toEqual({
      gantry_tasks: 'gauge',
      gantry_task_queue_length: 'gauge',
      gantry_task_duration_seconds: 'histogram',
      gantry_task_log_lines_total: 'counter',
      gantry_websocket_clients: 'gauge',
      gantry_http_request_duration_seconds: 'histogram',
      gantry_db_pool_connections: 'gauge',
      gantry_node_heartbeat_age_seconds: 'gauge',
      ...(engine.name !== 'sqlite' ? { gantry_db_pool_waiting_clients: 'gauge' } : {}),
    });
    expect(e.types.get('process_cpu_user_seconds_total')).toBe('counter');
    expect(e.types.get('nodejs_heap_size_used_bytes')).toBe('gauge');
    expect(sampleValue(e, 'gantry_websocket_clients')).toBe(0);
    expect(sampleValue(e, 'gantry_task_queue_length')).toBe(0);
    expect(sampleValue(e, 'gantry_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    // This node heartbeats from the start: its own age is a few seconds at most.
    expect(sampleValue(e, 'gantry_node_heartbeat_age_seconds', { self: 'true' })).toBeLessThan(6);
  });

  it('counts, times and logs a task that ran', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    const p = await createProject(admin);
    const tpl = await setupTemplate(admin, p, gitRepo({ 'ok.sh': 'echo one\necho two\n' }), {
      app: 'bash',
      playbook: 'ok.sh',
    });
    const before = await scrape();
    const count = (e: Exposition) => sampleValue(e, 'gantry_task_duration_seconds_count', { status: 'success' }) ?? 0;
    const tasks = (e: Exposition) => sampleValue(e, 'gantry_tasks', { status: 'success', app: 'bash' }) ?? 0;
    const lines = (e: Exposition) => sampleValue(e, 'gantry_task_log_lines_total') ?? 0;

    const id = await runTask(admin, p, { template_id: tpl.templateId });
    expect((await waitForTask(admin, p, id)).status).toBe('success');
    // The final frame goes out just after the status is stored.
    await expect.poll(async () => count(await scrape()), { timeout: 5_000 }).toBe(count(before) + 1);
    await expect.poll(async () => tasks(await scrape()), { timeout: 5_000 }).toBe(tasks(before) + 1);
    const after = await scrape();
    expect(lines(after)).toBeGreaterThanOrEqual(lines(before) + 2);
    expect(sampleValue(after, 'gantry_task_duration_seconds_bucket', { status: 'success', le: '+Inf' })).toBe(
      count(before) + 1,
    );
    expect(sampleValue(after, 'gantry_task_queue_length')).toBe(0);
  });

  it('times requests by route pattern, never by raw URL', async () => {
    const ctx = t();
    const admin = await signedInUser(ctx, { admin: true });
    await admin.get('/api/project/987654/tasks/123456');
    await ctx.app.inject({ url: '/no/such/page/42' });
    const e = await scrape();
    const routes = new Set(
      e.samples.filter((s) => s.name === 'gantry_http_request_duration_seconds_count').map((s) => s.labels.route),
    );
    expect(routes).toContain('/api/project/:projectId/tasks/:id');
    expect(routes).toContain('unmatched');
    expect([...routes].some((r) => r?.includes('987654') || r?.includes('/no/such'))).toBe(false);
    expect(
      sampleValue(e, 'gantry_http_request_duration_seconds_count', {
        route: 'unmatched',
        method: 'GET',
        status_code: '404',
      }),
    ).toBeGreaterThanOrEqual(1);
  });
});

describe('GET /metrics while off', () => {
  const t = useTestApp(engines[0]!);

  it('answers 404 like any unknown route', async () => {
    const res = await t().app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Route GET /metrics not found', code: 'route_not_found' });
  });
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Exposition {
  /** Metric family name -> its TYPE. */
  types: Map<string, string>;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const HELP_LINE = new RegExp(`^# HELP (${NAME}) .*$`);
const TYPE_LINE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE_LINE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)"(?:,|$)/y;

/**
 * Parses Prometheus text exposition (format 0.0.4) strictly, line by line: every line is a HELP,
 * a TYPE or a `name{labels} value` sample whose family was typed before it; throws on the first
 * line that is none of these. For tests of /metrics.
 */
function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const help = HELP_LINE.exec(line);
    if (help) {
      helps.add(help[1]!);
      continue;
    }
    const type = TYPE_LINE.exec(line);
    if (type) {
      if (types.has(type[1]!)) throw new Error(`TYPE given twice: ${line}`);
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (line.startsWith('#')) throw new Error(`unknown comment line: ${line}`);
    const m = SAMPLE_LINE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const [, name, labelText, valueText] = m as unknown as [string, string, string | undefined, string];
    const family = familyOf(name, types);
    if (!family) throw new Error(`sample of an untyped family: ${line}`);
    // Go's ParseFloat, which Prometheus uses, takes NaN and Inf in any case (prom-client writes `Nan`).
    const special = /^(nan|[+-]?inf)$/i.test(valueText);
    const value = special
      ? /nan/i.test(valueText)
        ? NaN
        : valueText.startsWith('-')
          ? -Infinity
          : Infinity
      : Number(valueText);
    if (!special && !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(valueText)) throw new Error(`bad value: ${line}`);
    samples.push({ name, labels: parseLabels(labelText ?? '', line), value });
  }
  for (const family of types.keys()) if (!helps.has(family)) throw new Error(`no HELP for ${family}`);
  return { types, samples };
}

/** The value of the sample with this name and (at least) these labels; undefined when absent. */
function sampleValue(e: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  return e.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  const type = types.get(base);
  return type === 'histogram' || type === 'summary' ? base : undefined;
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const m = LABEL.exec(text);
    if (!m) throw new Error(`bad labels: ${line}`);
    labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}
