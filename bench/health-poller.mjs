// Polls GET /api/health as fast as the server answers (one request at a time, 5 ms apart), in a
// process of its own so the client's work does not share the server's event loop. Started by
// restore-health.mjs with child_process.fork; not run by hand.
//   env: BENCH_BASE (http://127.0.0.1:port)
//   parent -> child: { type: 'stop' }   stop polling and report
//   child -> parent: { type: 'ready' }, { type: 'report', latencies: [ms, ...], failures }
const base = process.env.BENCH_BASE;
let running = true;
const latencies = [];
let failures = 0;

process.on('message', (m) => {
  if (m.type === 'stop') running = false;
});

process.send({ type: 'ready' });
while (running) {
  const start = performance.now();
  try {
    const res = await fetch(`${base}/api/health`);
    await res.text();
    if (res.status === 200) latencies.push(performance.now() - start);
    else failures += 1;
  } catch {
    failures += 1;
  }
  await new Promise((r) => setTimeout(r, 5));
}
process.send({ type: 'report', latencies, failures }, () => process.exit(0));
