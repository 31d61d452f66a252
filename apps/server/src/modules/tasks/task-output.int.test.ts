import type { AddressInfo } from 'node:net';
import { SESSION_COOKIE, TASK_OUTPUT_PAGE_SIZE, type TaskOutputPage } from '@gantry/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LogLine } from '../../engine/ports.js';
import { gitRepo } from '../../test/git-fixture.js';
import { addMember, createProject, engines, signedInUser, useTestApp, type Caller, type TestContext } from '../../test/harness.js';
import { runTask, setupTemplate, waitForTask } from '../../test/tasks.js';
import { TaskOutputRepository } from './task-output.repository.js';

/** Lines for task `taskId`: seq from..from+count-1, the text saying which. */
function makeLines(taskId: number, from: number, count: number, text = (seq: number) => `line ${seq}`): LogLine[] {
  return Array.from({ length: count }, (_, i) => ({ task_id: taskId, seq: from + i, time: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i % 1000)).toISOString(), output: text(from + i) }));
}

interface OutputFixture {
  owner: Caller;
  projectId: number;
  repo: TaskOutputRepository;
  /** A finished task with an empty log, which the test then writes straight into the table. */
  finishedTask(): Promise<number>;
}

/** An owner (not an admin) of a project with a bash template, set up once per describe block. */
function useOutputFixture(t: () => TestContext): () => OutputFixture {
  let f: OutputFixture | undefined;
  beforeAll(async () => {
    const owner = await signedInUser(t());
    const admin = await signedInUser(t(), { admin: true });
    const projectId = await createProject(admin);
    await addMember(t(), projectId, owner.id, 'owner');
    const { templateId } = await setupTemplate(owner, projectId, gitRepo({ 'run.sh': 'echo hi\n' }), { app: 'bash', playbook: 'run.sh' });
    f = {
      owner,
      projectId,
      repo: new TaskOutputRepository(t().db),
      async finishedTask() {
        const id = await runTask(owner, projectId, { template_id: templateId });
        await waitForTask(owner, projectId, id);
        await t().db.db.deleteFrom('task_output').where('task_id', '=', id).execute();
        return id;
      },
    };
  });
  return () => f!;
}

describe.each(engines)('task output ($name)', (engine) => {
  const t = useTestApp(engine);
  const fixture = useOutputFixture(t);
  let owner: Caller;
  let projectId: number;
  let repo: TaskOutputRepository;
  beforeAll(() => ({ owner, projectId, repo } = fixture()));
  const finishedTask = () => fixture().finishedTask();
  const page = async (id: number, query: string) => {
    const res = await owner.get(`/api/project/${projectId}/tasks/${id}/output?${query}`);
    expect(res.statusCode).toBe(200);
    return res.json<TaskOutputPage>();
  };

  it('answers pages of exactly the stored lines: from a seq, a range, the newest, and searched', async () => {
    const id = await finishedTask();
    await repo.append(makeLines(id, 1, 25_000, (s) => (s === 12_345 ? 'needle HERE 12345' : s % 5000 === 0 ? `50%_done ${s}` : `line ${s}`)));

    const first = await page(id, 'from_seq=1');
    expect(first.last_seq).toBe(25_000);
    expect(first.lines).toHaveLength(TASK_OUTPUT_PAGE_SIZE);
    expect(first.lines[0]).toEqual({ task_id: id, seq: 1, time: '2026-01-01T00:00:00.000Z', output: 'line 1' });
    expect(first.lines.map((l) => l.seq)).toEqual(Array.from({ length: TASK_OUTPUT_PAGE_SIZE }, (_, i) => i + 1));

    const range = await page(id, 'from_seq=20001&to_seq=20010&limit=100');
    expect(range.lines.map((l) => l.output)).toEqual(Array.from({ length: 10 }, (_, i) => `line ${20001 + i}`));

    const newest = await page(id, 'tail=1&limit=3');
    expect(newest.lines.map((l) => l.seq)).toEqual([24_998, 24_999, 25_000]);

    const beforeGap = await page(id, 'to_seq=100&tail=true&limit=2');
    expect(beforeGap.lines.map((l) => l.seq)).toEqual([99, 100]);

    const found = await page(id, 'q=needle%20here');
    expect(found.lines.map((l) => l.seq)).toEqual([12_345]);
    // LIKE wildcards in the search are plain text.
    const percent = await page(id, `q=${encodeURIComponent('50%_')}`);
    expect(percent.lines.map((l) => l.seq)).toEqual([5000, 10_000, 15_000, 20_000, 25_000]);
    const next = await page(id, `q=${encodeURIComponent('50%_')}&from_seq=15001&limit=1`);
    expect(next.lines.map((l) => l.seq)).toEqual([20_000]);

    // Every page of the log, one after another, is the whole log.
    const all: number[] = [];
    for (let from = 1; ; ) {
      const p = await page(id, `from_seq=${from}&limit=10000`);
      if (p.lines.length === 0) break;
      all.push(...p.lines.map((l) => l.seq));
      from = p.lines.at(-1)!.seq + 1;
    }
    expect(all).toEqual(Array.from({ length: 25_000 }, (_, i) => i + 1));

    // Without parameters: Semaphore's whole array, streamed.
    const whole = await owner.get(`/api/project/${projectId}/tasks/${id}/output`);
    expect(whole.headers['content-type']).toContain('application/json');
    const arr = whole.json<Array<{ seq: number; output: string }>>();
    expect(arr).toHaveLength(25_000);
    expect(arr[12_344]).toMatchObject({ seq: 12_345, output: 'needle HERE 12345' });
  });

  it('refuses bad paging parameters with 400 and answers 404 for a task of another project', async () => {
    const id = await finishedTask();
    for (const q of ['limit=0', 'limit=10001', 'from_seq=abc', 'from_seq=-1', 'tail=maybe', `q=${'x'.repeat(201)}`]) {
      const res = await owner.get(`/api/project/${projectId}/tasks/${id}/output?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error).toEqual(expect.any(String));
    }
    const other = await createProject(await signedInUser(t(), { admin: true }));
    expect((await owner.get(`/api/project/${other}/tasks/${id}/output?from_seq=1`)).statusCode).toBe(404);
    expect((await owner.get(`/api/project/${other}/tasks/${id}/output`)).statusCode).toBe(404);
    expect((await owner.get(`/api/project/${other}/tasks/${id}/raw_output`)).statusCode).toBe(404);
    const stranger = await signedInUser(t());
    expect((await stranger.get(`/api/project/${projectId}/tasks/${id}/output?from_seq=1`)).statusCode).toBeGreaterThanOrEqual(403);
  });

  it('raw_output: plain text without colour codes, inline; ?ansi=1 keeps them, ?download=1 is an attachment', async () => {
    const id = await finishedTask();
    await repo.append(makeLines(id, 1, 3, (s) => `\u001b[0;32mok: [host${s}]\u001b[0m \u001b]0;title\u0007done`));
    const plain = await owner.get(`/api/project/${projectId}/tasks/${id}/raw_output`);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toContain('text/plain');
    expect(plain.headers['content-disposition']).toBe(`inline; filename="task-${id}.log"`);
    expect(plain.body).toBe('ok: [host1] done\nok: [host2] done\nok: [host3] done\n');
    // A page is stripped as one text: an escape left open on one line never eats the next.
    const open = await finishedTask();
    await repo.append(makeLines(open, 1, 3, (s) => (s === 1 ? 'title \u001b]0;never closed' : `\u001b[1mline ${s}\u001b[0m`)));
    const openBody = (await owner.get(`/api/project/${projectId}/tasks/${open}/raw_output`)).body;
    expect(openBody.split('\n')).toEqual(['title 0;never closed', 'line 2', 'line 3', '']);
    const ansi = await owner.get(`/api/project/${projectId}/tasks/${id}/raw_output?ansi=1`);
    expect(ansi.body.split('\n')[0]).toBe('\u001b[0;32mok: [host1]\u001b[0m \u001b]0;title\u0007done');
    const download = await owner.get(`/api/project/${projectId}/tasks/${id}/raw_output?download=1`);
    expect(download.headers['content-disposition']).toBe(`attachment; filename="task-${id}.log"`);
  });

  it('stores any text as written: tabs, backslashes, carriage returns, quotes and non-ASCII come back the same', async () => {
    const id = await finishedTask();
    const texts = ['a\tb\\c', '\\N', 'back\\slash\\n not a newline', 'cr\rin the middle', 'quote " and \' and ,', 'ünïcødé ✓ 日本語', '', ' '];
    await repo.append(makeLines(id, 1, texts.length, (s) => texts[s - 1]!));
    const got = await page(id, 'from_seq=1');
    expect(got.lines.map((l) => l.output)).toEqual(texts);
  });

  it('deleting a task, a template or a project deletes its output', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const otherProject = await createProject(admin);
    const { templateId } = await setupTemplate(admin, otherProject, gitRepo({ 'run.sh': 'echo hi\n' }), { app: 'bash', playbook: 'run.sh' });
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const id = await runTask(admin, otherProject, { template_id: templateId });
      await waitForTask(admin, otherProject, id);
      await repo.append(makeLines(id, 1000, 5));
      ids.push(id);
    }
    const count = async (id: number) => (await t().db.db.selectFrom('task_output').select((eb) => eb.fn.countAll<number>().as('n')).where('task_id', '=', id).executeTakeFirstOrThrow()).n;
    expect(Number(await count(ids[0]!))).toBeGreaterThan(5);
    expect((await admin.del(`/api/project/${otherProject}/tasks/${ids[0]}`)).statusCode).toBe(204);
    expect(Number(await count(ids[0]!))).toBe(0);
    expect(Number(await count(ids[1]!))).toBeGreaterThan(5);
    expect((await admin.del(`/api/project/${otherProject}/templates/${templateId}`)).statusCode).toBe(204);
    expect(Number(await count(ids[1]!))).toBe(0);
    expect(Number(await count(ids[2]!))).toBe(0);

    const third = await createProject(admin);
    const tpl = await setupTemplate(admin, third, gitRepo({ 'run.sh': 'echo hi\n' }), { app: 'bash', playbook: 'run.sh' });
    const last = await runTask(admin, third, { template_id: tpl.templateId });
    await waitForTask(admin, third, last);
    expect(Number(await count(last))).toBeGreaterThan(0);
    expect((await admin.del(`/api/project/${third}`)).statusCode).toBe(204);
    expect(Number(await count(last))).toBe(0);
  });

  it('log retention deletes the output of old tasks only and keeps every task row', async () => {
    const oldId = await finishedTask();
    const newId = await finishedTask();
    await repo.append(makeLines(oldId, 1, 10));
    await repo.append(makeLines(newId, 1, 10));
    const longAgo = new Date(Date.now() - 40 * 24 * 3600 * 1000).toISOString();
    await t().db.db.updateTable('task').set({ created: longAgo, start: longAgo, end: longAgo }).where('id', '=', oldId).execute();
    // Other tests' tasks are recent: they keep their output too.
    const deleted = await t().app.services.taskOutput.applyRetention(30);
    expect(deleted).toBe(10);
    expect((await page(oldId, 'from_seq=1')).lines).toEqual([]);
    expect((await page(newId, 'from_seq=1')).lines).toHaveLength(10);
    expect((await owner.get(`/api/project/${projectId}/tasks/${oldId}`)).statusCode).toBe(200);
    expect(await t().app.services.taskOutput.applyRetention(0)).toBe(0);
    expect((await page(newId, 'from_seq=1')).lines).toHaveLength(10);
  });
});

// The memory bound is measured on the embedded engine; PostgreSQL streams through the same
// keyset pages (the whole-log answers above read 25,000 lines that way on both engines).
describe('task output, 1,000,000 lines (sqlite)', () => {
  const t = useTestApp(engines[0]!);
  const fixture = useOutputFixture(t);

  it('streams a 1,000,000-line raw log over HTTP with the memory of a few pages', { timeout: 120_000 }, async () => {
    const { owner, projectId, repo } = fixture();
    const id = await fixture().finishedTask();
    const LINES = 1_000_000;
    // ~100 bytes a line: the whole text is ~100 MB, so holding it would show in the heap.
    const pad = 'x'.repeat(80);
    for (let from = 1; from <= LINES; from += 50_000) await repo.append(makeLines(id, from, 50_000, (s) => `${s} ${pad}`));
    await t().app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t().app.server.address() as AddressInfo).port;
    // What the stream retains is measured after a full collection at every ~8 MB received, so
    // garbage the collector simply has not reached yet never counts (vitest runs with --expose-gc).
    const gc = (globalThis as { gc?: () => void }).gc;
    expect(gc, 'tests run with --expose-gc').toBeTypeOf('function');
    gc!();
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    const res = await fetch(`http://127.0.0.1:${port}/api/project/${projectId}/tasks/${id}/raw_output`, { headers: { cookie: `${SESSION_COOKIE}=${owner.cookie}` } });
    expect(res.status).toBe(200);
    let lines = 0;
    let bytes = 0;
    let nextCheck = 8 * 1024 * 1024;
    let tail = '';
    let last = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      const text = tail + decoder.decode(chunk, { stream: true });
      const parts = text.split('\n');
      tail = parts.pop()!;
      lines += parts.length;
      if (parts.length) last = parts.at(-1)!;
      if (bytes >= nextCheck) {
        nextCheck += 8 * 1024 * 1024;
        gc!();
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }
    }
    expect(lines).toBe(LINES);
    expect(last).toBe(`${LINES} ${pad}`);
    expect(bytes).toBeGreaterThan(80 * LINES);
    // The text is ~90 MB (~180 MB as JS strings); streamed, the server retains a few pages only.
    expect(peak - before).toBeLessThan(40 * 1024 * 1024);
  });
});
