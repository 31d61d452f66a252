// Median time from POST /api/project/{id}/tasks to the task's first log line on the WebSocket,
// with a free slot. Target: under 50 ms. Run after `npm run build`: node bench/task-start-latency.mjs
import WebSocket from 'ws';
import { bashTemplate, median, startBenchServer } from './common.mjs';

const RUNS = Number(process.env.RUNS ?? 30);
const { base, cookie, api, close } = await startBenchServer();
const { projectId, templateId } = await bashTemplate(api, 'echo hello\n');
const ws = new WebSocket(base.replace('http', 'ws') + '/api/ws', { headers: { cookie } });
await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));

// Time of the first log line seen per task id.
const firstLine = new Map();
const waiters = new Map();
ws.on('message', (data) => {
  const m = JSON.parse(data.toString());
  if (m.type !== 'log' || firstLine.has(m.task_id)) return;
  const now = performance.now();
  firstLine.set(m.task_id, now);
  waiters.get(m.task_id)?.(now);
});
const times = [];
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  const task = await api('POST', `/api/project/${projectId}/tasks`, { template_id: templateId });
  const t1 = firstLine.get(task.id) ?? (await new Promise((resolve) => waiters.set(task.id, resolve)));
  times.push(t1 - t0);
  // Let it finish so every run starts with a free slot.
  while (!['success', 'error'].includes((await api('GET', `/api/project/${projectId}/tasks/${task.id}`)).status)) {
    await new Promise((r) => setTimeout(r, 5));
  }
}
ws.close();
await close();
const m = median(times);
console.log(`task start latency over ${RUNS} runs: median ${m.toFixed(1)} ms, min ${Math.min(...times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms (target < 50 ms)`);
