// Log ingest rate: a task prints 1,000,000 lines; measures lines per second from the task's start
// to the moment every line is stored, and checks that all of them are. Target: over 100,000 lines/s.
// Run after `npm run build`: node bench/log-ingest.mjs
import { bashTemplate, startBenchServer } from './common.mjs';

const LINES = Number(process.env.LINES ?? 1_000_000);
const { app, api, close } = await startBenchServer();
const { projectId, templateId } = await bashTemplate(api, `seq 1 ${LINES}\n`);
const t0 = performance.now();
const task = await api('POST', `/api/project/${projectId}/tasks`, { template_id: templateId });
let status = 'waiting';
while (!['success', 'error', 'stopped'].includes(status)) {
  await new Promise((r) => setTimeout(r, 50));
  status = (await api('GET', `/api/project/${projectId}/tasks/${task.id}`)).status;
}
const seconds = (performance.now() - t0) / 1000;
const row = await app.services.tasks['repo'].output(task.id);
const numbers = row.filter((l) => /^\d+$/.test(l.output)).length;
await close();
console.log(`log ingest: ${LINES} lines in ${seconds.toFixed(2)} s = ${Math.round(LINES / seconds).toLocaleString('en')} lines/s; stored ${numbers} of ${LINES} (${status}) (target > 100,000 lines/s, all stored)`);
if (numbers !== LINES) process.exitCode = 1;
