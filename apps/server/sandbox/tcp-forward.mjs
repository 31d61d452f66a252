// Runs inside a task's sandbox, as the task's user, in the task's own network namespace: listens
// on 127.0.0.1:<port> there and relays every connection to the Unix socket Gantry showed this
// sandbox only (the task's Terraform HTTP backend), then runs the task's command and exits with
// its status. Plain JavaScript, so the sandbox needs nothing but the node binary to run it.
//
// Usage: node tcp-forward.mjs <port> <socket> -- <command> [args...]
import { spawn } from 'node:child_process';
import net from 'node:net';

const [port, socket, separator, command, ...args] = process.argv.slice(2);
if (separator !== '--' || !command || !/^\d+$/.test(port ?? '')) {
  process.stderr.write('usage: tcp-forward.mjs <port> <socket> -- <command> [args...]\n');
  process.exit(2);
}

const server = net.createServer((client) => {
  const upstream = net.connect(socket);
  client.pipe(upstream).pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
});

// A polite stop reaches the command directly (the engine signals every process of the sandbox):
// this helper only waits for it to end.
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => undefined);

server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(command, args, { stdio: 'inherit' });
  child.on('error', (e) => {
    process.stderr.write(`${command}: ${e.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    server.close();
    process.exit(code ?? (signal ? 128 + (signalNumber(signal) ?? 1) : 1));
  });
});

function signalNumber(name) {
  return { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }[name];
}
