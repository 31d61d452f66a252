import { CSRF_HEADER, SESSION_COOKIE, type ProjectRole } from '@gantry/contracts';
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { buildApp, type GantryApp } from '../app.js';
import { loadConfig, type Config } from '../config/config.js';
import { createDb, type Db } from '../db/db.js';
import { migrateToLatest } from '../db/migrate.js';
import { masterKeyService } from '../modules/system/master-key.service.js';
import { SecretBox } from '../platform/crypto.js';
import type { TestDatabase } from './engines.js';
import { engines } from './engines.js';
import { TEST_ALLOWED_LOCAL_PATHS } from './git-fixture.js';
import { recordAnswers, type AnswerRecorder } from './openapi-answers.js';

export { engines };

export interface TestContext {
  app: GantryApp;
  db: Db;
  config: Config;
  /** The app's master key for secrets at rest (tests may open what it sealed). */
  secretKey: Buffer;
  /** Delays the sign-in throttle asked for (it does not really wait in tests). */
  sleeps: number[];
}

/**
 * Starts a real app on a fresh database of the given engine for one describe block.
 * Use: `const t = useTestApp(engine)`; `t()` is the context once beforeAll has run.
 */
export function useTestApp(
  engine: (typeof engines)[number],
  env: Record<string, string> = {},
  opts: { checkStatuses?: boolean } = {},
): () => TestContext {
  let ctx: TestContext | undefined;
  let database: TestDatabase;
  let answers: AnswerRecorder | undefined;
  beforeAll(async () => {
    database = await engine.create();
    const config = loadConfig({
      GANTRY_DATA_DIR: database.dataDir,
      GANTRY_DB_URL: database.url,
      GANTRY_LOG_LEVEL: process.env.GANTRY_TEST_LOG_LEVEL ?? 'silent',
      GANTRY_WEB_DIST: '/nonexistent',
      // The fixtures' repositories are local paths (a test may narrow or clear this through `env`).
      GANTRY_ALLOWED_LOCAL_PATHS: TEST_ALLOWED_LOCAL_PATHS,
      ...env,
    });
    const db = createDb(config.dbUrl);
    await migrateToLatest(db);
    const sleeps: number[] = [];
    const secretKey = randomBytes(32);
    // As at a real start: the fresh database's check value is sealed with this key.
    await masterKeyService(db).verify(new SecretBox(secretKey), 'test key');
    // A delay is recorded, not waited out; it still lets other requests run meanwhile, as a real one does.
    const sleep = async (ms: number) => {
      sleeps.push(ms);
      await new Promise((resolve) => setImmediate(resolve));
    };
    const app = await buildApp({ config, db, secretKey, sleep });
    if (opts.checkStatuses !== false) answers = recordAnswers(app);
    ctx = { app, db, config, secretKey, sleeps };
  });
  afterAll(async () => {
    // Every status the tests met must be one the OpenAPI document promises for that operation.
    const undocumented = ctx && answers ? answers.undocumented(ctx.app) : [];
    await ctx?.app.close();
    await ctx?.db.close();
    await database?.drop();
    if (undocumented.length > 0) {
      throw new Error(
        `Answers not in the OpenAPI document (declare them in the route's schema.response):\n${undocumented.join('\n')}`,
      );
    }
  });
  return () => {
    if (!ctx) throw new Error('test app not started');
    return ctx;
  };
}

export interface Caller {
  /** The signed-in user's id. */
  id: number;
  username: string;
  password: string;
  cookie: string;
  get(url: string): Promise<LightMyRequestResponse>;
  post(url: string, body?: unknown): Promise<LightMyRequestResponse>;
  put(url: string, body?: unknown): Promise<LightMyRequestResponse>;
  del(url: string): Promise<LightMyRequestResponse>;
}

let seq = 0;
/** A unique suffix for names within one test run. */
export function uniq(prefix = 'u'): string {
  seq += 1;
  return `${prefix}${process.pid}x${seq}`;
}

/** Creates a user through the service and signs them in through the API. */
export async function signedInUser(ctx: TestContext, opts: { admin?: boolean } = {}): Promise<Caller> {
  const username = uniq('user');
  const password = `pw-${username}`;
  const row = await ctx.app.services.users.create({
    username,
    name: `Name ${username}`,
    email: `${username}@example.com`,
    password,
    admin: opts.admin ?? false,
    external: false,
    alert: false,
  });
  const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth: username, password } });
  if (res.statusCode !== 204) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  const cookie = res.cookies.find((c) => c.name === SESSION_COOKIE)!.value;
  return callerFor(ctx, { id: row.id, username, password, cookie });
}

export function callerFor(
  ctx: TestContext,
  who: { id: number; username: string; password: string; cookie: string },
): Caller {
  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
    ctx.app.inject({
      method,
      url,
      cookies: { [SESSION_COOKIE]: who.cookie },
      headers: method === 'GET' ? {} : { [CSRF_HEADER]: '1' },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  return {
    ...who,
    get: (url) => send('GET', url),
    post: (url, body) => send('POST', url, body),
    put: (url, body) => send('PUT', url, body),
    del: (url) => send('DELETE', url),
  };
}

/** Puts a user in a project with a role, straight into the table (the team API comes later). */
export async function addMember(ctx: TestContext, projectId: number, userId: number, role: ProjectRole): Promise<void> {
  await ctx.db.db
    .insertInto('project_user')
    .values({ project_id: projectId, user_id: userId, role, created: new Date().toISOString() })
    .execute();
}

export async function createProject(caller: Caller, name = uniq('project')): Promise<number> {
  const res = await caller.post('/api/projects', { name });
  if (res.statusCode !== 201) throw new Error(`create project failed: ${res.statusCode} ${res.body}`);
  return res.json<{ id: number }>().id;
}
