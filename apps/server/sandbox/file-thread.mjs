// The engine's file thread: a worker thread that does a run's workspace file work (file-ops.mjs)
// with synchronous calls, so the server's thread spends one message on a copy, a hand-over or a
// removal instead of a step per file (each step through libuv's pool costs more than the step).
//
// Protocol: in {id, op, args}; out {id, value} or {id, error: {message, code}}.
import { parentPort } from 'node:worker_threads';
import * as ops from './file-ops.mjs';

const allowed = new Set(['makeWorkspace', 'copyTree', 'removeSmallTree', 'handOver']);

parentPort.on('message', ({ id, op, args }) => {
  try {
    if (!allowed.has(op)) throw new Error(`unknown file operation ${op}`);
    parentPort.postMessage({ id, value: ops[op](...args) });
  } catch (e) {
    parentPort.postMessage({ id, error: { message: String(e?.message ?? e), code: e?.code } });
  }
});
