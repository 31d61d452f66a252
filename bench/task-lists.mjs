// How fast the task lists answer with 100,000 finished tasks in one project: the history list,
// a template's tasks, one task, the active tasks page and a year of stats (median of RUNS calls
// each), and the server's RSS. SQLite by default; DB=pg for a fresh PostgreSQL database (dropped
// afterwards). Run after `npm run build`: node bench/task-lists.mjs  (TASKS=… to change the count, DB=…)
import { sql } from 'kysely';
import { bashTemplate, benchDb, load, median, rssSampler, startBenchServer } from './common.mjs';

const TASKS = Number(process.env.TASKS ?? 100_000);
const RUNS = Number(process.env.RUNS ?? 30);
const database = await benchDb();
let server;
try {
  server = await startBenchServer(database.env);
  const { app, db, api } = server;
  const { projectId, templateId } = await bashTemplate(api, 'echo hello\n');
  const other = await api('POST', `/api/project/${projectId}/templates`, { ...(await api('GET', `/api/project/${projectId}/templates/${templateId}`)), id: undefined, name: 'other' });
  const user = await app.services.users.findByLogin('bench');

  // Finished tasks spread over the past year, a tenth of them of a second template.
  const statuses = ['success', 'success', 'success', 'error', 'stopped'];
  const now = Date.now();
  const t0 = performance.now();
  for (let i = 0; i < TASKS; i += 1000) {
    const rows = [];
    for (let j = i; j < Math.min(TASKS, i + 1000); j++) {
      const created = new Date(now - ((TASKS - j) / TASKS) * 365 * 86400_000).toISOString();
      rows.push({
        project_id: projectId,
        template_id: j % 10 === 0 ? other.id : templateId,
        status: statuses[j % statuses.length],
        message: `bench ${j}`,
        commit_message: '',
        environment: '{}',
        params: '{}',
        user_id: user?.id ?? null,
        created,
        start: created,
        end: created,
      });
    }
    await db.db.insertInto('task').values(rows).execute();
  }
  // PostgreSQL's autovacuum analyzes a table this grown within a minute; before that its planner
  // guesses from an empty table's statistics. Measure the settled state.
  if (database.kind === 'pg') await sql`ANALYZE task`.execute(db.db);
  const rss = rssSampler(20);
  console.log(`inserted ${TASKS} tasks (${database.label}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const last = await api('GET', `/api/project/${projectId}/tasks/last?limit=1`);
  const since = new Date(now - 364 * 86400_000).toISOString().slice(0, 10);
  const calls = [
    ['history: GET /project/{id}/tasks/last?limit=200', `/api/project/${projectId}/tasks/last?limit=200`],
    ["template's tasks: GET /templates/{id}/tasks/last?limit=200", `/api/project/${projectId}/templates/${other.id}/tasks/last?limit=200`],
    ['one task: GET /project/{id}/tasks/{taskId}', `/api/project/${projectId}/tasks/${last[0].id}`],
    ['active tasks: GET /api/tasks', '/api/tasks'],
    ['stats, past year: GET /project/{id}/stats', `/api/project/${projectId}/stats?start=${since}`],
    ['template stats, past year', `/api/project/${projectId}/templates/${other.id}/stats?start=${since}`],
  ];
  for (const [name, url] of calls) {
    const times = [];
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now();
      await api('GET', url);
      times.push(performance.now() - s);
    }
    console.log(`${name}: median ${median(times).toFixed(1)} ms over ${RUNS} calls (${TASKS} tasks, ${database.label})`);
  }
  const mem = rss.stop();
  console.log(`server RSS ${mem.baselineMb.toFixed(0)} MB with the tasks stored, +${mem.growthMb.toFixed(0)} MB peak over the calls [${load()}]`);
} finally {
  await server?.close();
  await database.drop();
}
