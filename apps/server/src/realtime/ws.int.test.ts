import { CSRF_HEADER, SESSION_COOKIE, type WsMessage } from '@gantry/contracts';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../test/git-fixture.js';
import {
  addMember,
  callerFor,
  createProject,
  engines,
  signedInUser,
  useTestApp,
  type Caller,
  type TestContext,
} from '../test/harness.js';
import { runTask, setupTemplate, waitForTask } from '../test/tasks.js';

/** The part of the `ws` client the tests use (the package ships no type declarations here). */
interface ClientSocket {
  readonly readyState: number;
  on(event: 'open', fn: () => void): void;
  on(event: 'close', fn: (code: number) => void): void;
  on(event: 'message', fn: (data: Buffer) => void): void;
  on(event: 'unexpected-response', fn: (req: unknown, res: { statusCode: number }) => void): void;
  on(event: 'error', fn: (err: Error) => void): void;
  send(data: string | Buffer): void;
  close(): void;
  terminate(): void;
}
const WebSocket = createRequire(import.meta.url)('ws') as {
  new (url: string, options: { headers: Record<string, string> }): ClientSocket;
  readonly OPEN: number;
};

interface Open {
  ws: ClientSocket;
  messages: WsMessage[];
  /** Resolves with the close code once the server (or the client) closed the socket. */
  closed: Promise<number>;
}

/** Opens /api/ws on the listening app: resolves once open, rejects with the HTTP status when refused. */
function openSocket(base: string, headers: Record<string, string>): Promise<Open> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base}/api/ws`, { headers });
    const messages: WsMessage[] = [];
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as WsMessage));
    ws.on('open', () => resolve({ ws, messages, closed }));
    ws.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.on('error', reject);
  });
}

const withCookie = (c: Caller, extra: Record<string, string> = {}) => ({
  cookie: `${SESSION_COOKIE}=${c.cookie}`,
  ...extra,
});

/** Resolves with the close code, or rejects when the socket is still open after `ms`. */
function closedWithin(o: Open, ms: number): Promise<number> {
  return Promise.race([
    o.closed,
    new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`socket still open after ${ms} ms`)), ms)),
  ]);
}

const settle = () => new Promise((r) => setTimeout(r, 200));

function listen(t: () => TestContext): () => string {
  let base = '';
  beforeAll(async () => {
    await t().app.listen({ port: 0, host: '127.0.0.1' });
    base = `ws://127.0.0.1:${(t().app.server.address() as AddressInfo).port}`;
  });
  return () => base;
}

describe.each(engines)('WebSocket /api/ws ($name)', (engine) => {
  const t = useTestApp(engine);
  const base = listen(t);

  const connect = async (c: Caller) => {
    const ws = await t().app.injectWS('/api/ws', { headers: { cookie: `${SESSION_COOKIE}=${c.cookie}` } });
    const messages: WsMessage[] = [];
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as WsMessage));
    return { ws, messages };
  };

  /** A bash template in a new project owned by `owner`, ready to run. */
  const bashProject = async (owner: Caller) => {
    const p = await createProject(await signedInUser(t(), { admin: true }));
    await addMember(t(), p, owner.id, 'owner');
    const s = await setupTemplate(owner, p, gitRepo({ 'run.sh': 'echo hello\n' }), { app: 'bash', playbook: 'run.sh' });
    /** Runs the template as `by` (default: the owner) and waits until its frames went out. */
    const run = async (by = owner) => {
      const id = await runTask(by, p, { template_id: s.templateId });
      await waitForTask(by, p, id);
      await settle();
      return id;
    };
    return { projectId: p, run };
  };
  const framesOf = (messages: WsMessage[], taskId: number) => messages.filter((m) => m.task_id === taskId);

  it("sends a task's log lines and status changes to members and admins only", async () => {
    const ctx = t();
    const owner = await signedInUser(ctx);
    const admin = await signedInUser(ctx, { admin: true });
    const stranger = await signedInUser(ctx);
    const p = await createProject(admin);
    await addMember(ctx, p, owner.id, 'owner');
    const repo = gitRepo({ 'run.sh': 'echo line-one\necho line-two\n' });
    const s = await setupTemplate(admin, p, repo, { app: 'bash', playbook: 'run.sh' });

    const ownerWs = await connect(owner);
    const adminWs = await connect(admin);
    const strangerWs = await connect(stranger);
    const id = await runTask(owner, p, { template_id: s.templateId });
    await waitForTask(owner, p, id);
    await settle();

    for (const { messages } of [ownerWs, adminWs]) {
      const logs = messages
        .filter((m) => m.type === 'log' && m.task_id === id)
        .map((m) => (m as { output: string }).output);
      expect(logs).toEqual(expect.arrayContaining(['line-one', 'line-two']));
      expect(logs.indexOf('line-one')).toBeLessThan(logs.indexOf('line-two'));
      const statuses = messages
        .filter((m) => m.type === 'update' && m.task_id === id)
        .map((m) => (m as { status?: string }).status);
      expect(statuses).toEqual(['waiting', 'starting', 'running', 'success']);
      const log = messages.find((m) => m.type === 'log')!;
      expect(log).toMatchObject({ type: 'log', project_id: p, task_id: id, time: expect.any(String) });
    }
    expect(strangerWs.messages).toEqual([]);
    for (const c of [ownerWs, adminWs, strangerWs]) c.ws.terminate();
  });

  it('refuses a connection without a session', async () => {
    await expect(t().app.injectWS('/api/ws')).rejects.toThrow(/401/);
  });

  it('refuses an upgrade from another site, accepts our own origin and clients that send none', async () => {
    const user = await signedInUser(t());
    const own = base().replace('ws:', 'http:');
    const port = Number(new URL(own).port);
    for (const origin of ['https://evil.example', `http://127.0.0.1:${port + 1}`, `http://localhost:${port}`, 'null']) {
      await expect(openSocket(base(), withCookie(user, { origin })), origin).rejects.toThrow('HTTP 403');
    }
    for (const headers of [withCookie(user, { origin: own }), withCookie(user)]) {
      const o = await openSocket(base(), headers);
      o.ws.close();
    }
  });

  it('closes a socket that sends a frame over 64 KiB (1009)', async () => {
    const user = await signedInUser(t());
    const o = await openSocket(base(), withCookie(user));
    o.ws.send(Buffer.alloc(20 * 1024 * 1024, 'a'));
    expect(await o.closed).toBe(1009);
    // The server is still there for everyone else.
    (await openSocket(base(), withCookie(user))).ws.close();
  });

  it('closes a socket that floods the server with messages (1008)', async () => {
    const user = await signedInUser(t());
    const o = await openSocket(base(), withCookie(user));
    for (let i = 0; i < 50; i += 1) o.ws.send('{}');
    expect(await o.closed).toBe(1008);
  });

  it("closes a session's sockets within a second of logging out; the user's other sessions keep theirs", async () => {
    const ctx = t();
    const user = await signedInUser(ctx);
    const login = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { auth: user.username, password: user.password },
    });
    const otherSession = callerFor(ctx, {
      ...user,
      cookie: login.cookies.find((c) => c.name === SESSION_COOKIE)!.value,
    });
    const { run } = await bashProject(user);
    const socket = await openSocket(base(), withCookie(user));
    const other = await openSocket(base(), withCookie(otherSession));

    const out = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      cookies: { [SESSION_COOKIE]: user.cookie },
      headers: { [CSRF_HEADER]: '1' },
    });
    expect(out.statusCode).toBe(204);
    expect(await closedWithin(socket, 1000)).toBe(4401);

    const id = await run(otherSession);
    expect(framesOf(other.messages, id).length).toBeGreaterThan(0);
    expect(framesOf(socket.messages, id)).toEqual([]);
    other.ws.close();
  });

  it('closes a socket whose session was deleted without an event (another node, the command line) within a second or so', async () => {
    const ctx = t();
    const user = await signedInUser(ctx);
    const socket = await openSocket(base(), withCookie(user));
    // What another server node or an operator's SQL does: the row goes, this process hears nothing.
    await ctx.db.db.deleteFrom('session').where('user_id', '=', user.id).execute();
    expect(await closedWithin(socket, 3000)).toBe(4401);
  });

  it("stops a demoted admin's frames of projects they are not a member of", async () => {
    const ctx = t();
    const root = await signedInUser(ctx, { admin: true });
    const admin = await signedInUser(ctx, { admin: true });
    const owner = await signedInUser(ctx);
    const { run } = await bashProject(owner);
    const o = await openSocket(base(), withCookie(admin));

    const before = await run();
    expect(framesOf(o.messages, before).length).toBeGreaterThan(0);

    const res = await root.put(`/api/users/${admin.id}`, {
      name: `Name ${admin.username}`,
      username: admin.username,
      email: `${admin.username}@example.com`,
      admin: false,
    });
    expect(res.statusCode).toBe(204);
    const after = await run();
    expect(framesOf(o.messages, after)).toEqual([]);
    o.ws.close();
  });

  it('stops frames of a project once the member is removed from its team', async () => {
    const ctx = t();
    const owner = await signedInUser(ctx);
    const member = await signedInUser(ctx);
    const { projectId, run } = await bashProject(owner);
    expect(
      (await owner.post(`/api/project/${projectId}/users`, { user_id: member.id, role: 'task_runner' })).statusCode,
    ).toBe(204);
    const o = await openSocket(base(), withCookie(member));

    const before = await run();
    expect(framesOf(o.messages, before).length).toBeGreaterThan(0);

    expect((await owner.del(`/api/project/${projectId}/users/${member.id}`)).statusCode).toBe(204);
    const after = await run();
    expect(framesOf(o.messages, after)).toEqual([]);
    expect(o.ws.readyState).toBe(WebSocket.OPEN);
    o.ws.close();
  });
});

describe.each(engines)('WebSocket /api/ws behind GANTRY_WEB_HOST ($name)', (engine) => {
  const t = useTestApp(engine, { GANTRY_WEB_HOST: 'https://gantry.example/' });
  const base = listen(t);

  it("accepts the configured console's origin and still refuses others", async () => {
    const user = await signedInUser(t());
    (await openSocket(base(), withCookie(user, { origin: 'https://gantry.example' }))).ws.close();
    await expect(openSocket(base(), withCookie(user, { origin: 'https://other.gantry.example' }))).rejects.toThrow(
      'HTTP 403',
    );
  });
});
