// The engine's process starter: a small Node process the server forks once, which starts every
// task process on the server's behalf and relays its pipes over the IPC channel.
//
// Why: Linux's fork copies the parent's page tables, so each start from the server (150-400 MB
// resident) blocked its event loop for 3-12 ms, four times per task. Forked from this process
// (~40 MB), a start costs a fraction of that and never on the server's thread.
// Plain JavaScript so that the built server and the tests (which run the TypeScript sources)
// start the same file. It runs nothing of its own: commands, arguments, environment, directory
// and user all come from the server's engine, which builds them (sandbox policy included).
//
// Protocol (advanced serialization, so Buffers pass as they are):
//   in:  {op:'spawn', id, command, args, cwd, env, detached, uid, gid, stdio, network?}
//        {op:'write', id, fd, data} {op:'end', id, fd} {op:'pause'|'resume', id, fd}
//   out: {ev:'spawned', id, pid} {ev:'error', id, message} {ev:'data', id, fd, data}
//        {ev:'exit', id, code, signal} {ev:'close', id, code, signal}
import { spawn } from 'node:child_process';

/** @type {Map<number, import('node:child_process').ChildProcess>} */
const children = new Map();

const send = (message) => {
  // The server is gone: nothing is left to report to.
  if (process.connected) process.send(message);
};

function start(m) {
  let child;
  try {
    child = spawn(m.command, m.args, {
      cwd: m.cwd,
      env: m.env,
      detached: m.detached,
      // The sandbox's network set-up talks over two more pipes (fd 3 and 4), here only.
      stdio: m.network ? [...m.stdio, 'pipe', 'pipe'] : m.stdio,
      ...(m.uid !== undefined ? { uid: m.uid, gid: m.gid } : {}),
    });
  } catch (e) {
    send({ ev: 'error', id: m.id, message: e.message });
    return;
  }
  let failed = false;
  child.once('error', (e) => {
    // After a start, 'error' only means a failed kill or message; before it, the start failed.
    if (child.pid !== undefined) return;
    failed = true;
    children.delete(m.id);
    send({ ev: 'error', id: m.id, message: e.message });
  });
  if (child.pid === undefined) return;
  children.set(m.id, child);
  send({ ev: 'spawned', id: m.id, pid: child.pid });
  if (m.network) attachNetwork(child, m.network);
  child.stdio.forEach((stream, fd) => {
    if (!stream || fd === 0 || fd >= m.stdio.length) return;
    stream.on('error', () => undefined);
    stream.on('data', (data) => send({ ev: 'data', id: m.id, fd, data }));
  });
  child.once('exit', (code, signal) => send({ ev: 'exit', id: m.id, code, signal }));
  child.once('close', (code, signal) => {
    children.delete(m.id);
    if (!failed) send({ ev: 'close', id: m.id, code, signal });
  });
}

/**
 * Gives a sandbox its network before its command runs: bwrap reports the sandbox's pid on fd 3
 * and waits for a byte on fd 4; the network helper (slirp4netns) is started for that namespace
 * and says on its fd 3 when it is ready, and bwrap goes on. Its arguments name the process
 * started as `{child}` and the namespace's process as `{target}` (the process started itself when
 * it made the namespace, else the sandbox bwrap reported). Without a working helper the task still
 * runs, with its own loopback only. Done here, not in the server, so that no step of a task's
 * start waits for the server's thread.
 * @param {import('node:child_process').ChildProcess} child
 * @param {{command: string, args: string[], targetIsChild: boolean, uid?: number, gid?: number}} n
 */
function attachNetwork(child, n) {
  const info = child.stdio[3];
  const block = child.stdio[4];
  let net = null;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clearTimeout(guard);
    block.end('1');
  };
  const guard = setTimeout(release, 10_000);
  block.on('error', () => undefined);
  info.on('error', () => undefined);
  let text = '';
  info.on('data', (chunk) => {
    text += chunk.toString('utf8');
    const found = /"child-pid":\s*(\d+)/.exec(text);
    if (!found || net) return;
    const target = n.targetIsChild ? child.pid : Number(found[1]);
    const args = n.args.map((a) => a.replaceAll('{child}', String(child.pid)).replaceAll('{target}', String(target)));
    try {
      net = spawn(n.command, args, {
        stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
        ...(n.uid !== undefined ? { uid: n.uid, gid: n.gid } : {}),
      });
    } catch {
      release();
      return;
    }
    net.once('error', release);
    net.once('exit', release);
    net.stdio[3]?.on('error', () => undefined);
    net.stdio[3]?.once('data', release);
  });
  child.once('exit', () => {
    clearTimeout(guard);
    net?.kill('SIGKILL');
  });
}

process.on('message', (m) => {
  if (m.op === 'spawn') return start(m);
  const stream = children.get(m.id)?.stdio[m.fd];
  if (!stream) return;
  if (m.op === 'write') stream.write(m.data);
  else if (m.op === 'end') stream.end();
  else if (m.op === 'pause') stream.pause();
  else if (m.op === 'resume') stream.resume();
});

// The server ends this process by going away (its channel closes); a Ctrl-C or a SIGTERM sent to
// the whole group must not take the tasks down before the server has drained them.
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => undefined);
process.on('disconnect', () => process.exit(0));
