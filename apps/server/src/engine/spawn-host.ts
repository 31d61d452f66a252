import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Duplex, Readable, type Writable } from 'node:stream';

/** What the engine needs of a started process: Node's ChildProcess has it, so has a relayed one. */
export interface StartedChild extends EventEmitter {
  /** Known once 'spawn' is emitted. */
  readonly pid: number | undefined;
  readonly stdio: ReadonlyArray<Readable | Writable | null>;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  kill(signal?: NodeJS.Signals): boolean;
}

export interface StartOptions {
  cwd?: string;
  env?: Record<string, string>;
  detached?: boolean;
  /** Per fd: 'ignore' or a pipe (stdin is never piped). */
  stdio: ('ignore' | 'pipe')[];
  uid?: number;
  gid?: number;
  /** The sandbox's network, set up by the helper before the command runs (see sandbox-network.ts). */
  network?: NetworkPlan;
}

/**
 * A helper process the spawn helper starts for a sandbox's network namespace once bwrap reports
 * it: `{child}` and `{target}` in `args` become the started process's pid and the namespace's
 * (the started process itself when `targetIsChild`, else the sandbox bwrap reports).
 */
export interface NetworkPlan {
  command: string;
  args: string[];
  targetIsChild: boolean;
  uid?: number;
  gid?: number;
}

const HELPER = fileURLToPath(new URL('../../sandbox/spawn-helper.mjs', import.meta.url));

type RelayedPipe = Duplex & { pauseRemote(): void };

interface HelperMessage {
  ev: 'spawned' | 'error' | 'data' | 'exit' | 'close';
  id: number;
  pid?: number;
  message?: string;
  fd?: number;
  data?: Uint8Array;
  code?: number | null;
  signal?: NodeJS.Signals | null;
}

/**
 * A process started by the spawn helper (sandbox/spawn-helper.mjs): its pipes are relayed over
 * the helper's channel with backpressure (a paused reader pauses the pipe in the helper, so the
 * child blocks on it), and it emits ChildProcess's events in ChildProcess's order: 'spawn' or
 * 'error', 'exit', then 'close' once every output pipe has been read to its end.
 */
class RelayedChild extends EventEmitter implements StartedChild {
  pid: number | undefined;
  readonly stdio: (Readable | Writable | null)[];
  private pendingKill: NodeJS.Signals | null = null;
  private ended = false;

  constructor(
    readonly id: number,
    stdio: StartOptions['stdio'],
    private readonly post: (m: object) => void,
  ) {
    super();
    this.stdio = stdio.map((kind, fd) => (kind === 'pipe' && fd > 0 ? this.pipe(fd) : null));
  }

  get stdout(): Readable | null {
    return (this.stdio[1] as Readable | null) ?? null;
  }

  get stderr(): Readable | null {
    return (this.stdio[2] as Readable | null) ?? null;
  }

  /** A pipe the child writes (read here) and may read (written here: the sandbox's go-ahead fd). */
  private pipe(fd: number): RelayedPipe {
    const post = this.post;
    const id = this.id;
    let paused = false;
    const stream = new Duplex({
      allowHalfOpen: true,
      read() {
        if (!paused) return;
        paused = false;
        post({ op: 'resume', id, fd });
      },
      write(chunk: Buffer, _enc, cb) {
        post({ op: 'write', id, fd, data: chunk });
        cb();
      },
      final(cb) {
        post({ op: 'end', id, fd });
        cb();
      },
    }) as RelayedPipe;
    stream.on('error', () => undefined);
    stream.pauseRemote = () => {
      if (paused) return;
      paused = true;
      post({ op: 'pause', id, fd });
    };
    return stream;
  }

  receive(m: HelperMessage): void {
    if (m.ev === 'spawned') {
      this.pid = m.pid;
      this.emit('spawn');
      if (this.pendingKill) this.kill(this.pendingKill);
    } else if (m.ev === 'data') {
      const stream = this.stdio[m.fd!] as RelayedPipe | null;
      if (stream && !stream.push(Buffer.from(m.data!.buffer, m.data!.byteOffset, m.data!.byteLength)))
        stream.pauseRemote();
    } else if (m.ev === 'exit') {
      this.emit('exit', m.code ?? null, m.signal ?? null);
    } else if (m.ev === 'close') {
      this.finish(m.code ?? null, m.signal ?? null);
    } else if (m.ev === 'error') {
      this.fail(m.message ?? 'the process could not be started');
    }
  }

  /** The child's pipes end; 'close' once each has been read out (as ChildProcess does). */
  finish(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.ended) return;
    this.ended = true;
    const readers = this.stdio.filter((s): s is Readable => s instanceof Readable);
    let open = readers.length;
    const closed = () => {
      if (--open === 0) this.emit('close', code, signal);
    };
    if (open === 0) {
      queueMicrotask(() => this.emit('close', code, signal));
      return;
    }
    for (const r of readers) {
      r.once('end', closed);
      r.push(null);
      // Nobody reads it: what is left is dropped, as an unread pipe's would be.
      if (r.readableFlowing === null) r.resume();
    }
  }

  fail(message: string): void {
    if (this.ended) return;
    this.ended = true;
    for (const s of this.stdio) s?.destroy();
    this.emit('error', Object.assign(new Error(message), { code: 'ESPAWN' }));
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.ended) return false;
    if (this.pid === undefined) {
      this.pendingKill = signal;
      return true;
    }
    try {
      process.kill(this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

/** The server's one spawn helper, forked on first use and again if it ever dies. */
class SpawnHost {
  private helper: ChildProcess | null = null;
  private readonly live = new Map<number, RelayedChild>();
  private nextId = 1;

  start(command: string, args: string[], options: StartOptions): StartedChild {
    const helper = this.ensure();
    const child = new RelayedChild(this.nextId++, options.stdio, (m) => this.post(helper, m));
    this.live.set(child.id, child);
    if (this.live.size === 1) this.ref(helper, true);
    child.once('close', () => this.forget(child.id));
    child.once('error', () => this.forget(child.id));
    this.post(helper, {
      op: 'spawn',
      id: child.id,
      command,
      args,
      cwd: options.cwd,
      env: options.env,
      detached: options.detached ?? false,
      stdio: options.stdio,
      uid: options.uid,
      gid: options.gid,
      network: options.network,
    });
    return child;
  }

  private forget(id: number): void {
    this.live.delete(id);
    if (this.live.size === 0 && this.helper) this.ref(this.helper, false);
  }

  private post(helper: ChildProcess, m: object): void {
    if (helper.connected) helper.send(m);
  }

  /** An idle helper never keeps the server's process alive; a busy one does, as its pipes would. */
  private ref(helper: ChildProcess, on: boolean): void {
    const channel = helper.channel as { ref(): void; unref(): void } | undefined;
    if (on) {
      helper.ref();
      channel?.ref();
    } else {
      helper.unref();
      channel?.unref();
    }
  }

  private ensure(): ChildProcess {
    if (this.helper?.connected) return this.helper;
    const helper = fork(HELPER, [], {
      execPath: process.execPath,
      execArgv: [],
      // It passes each child the environment the engine built; it needs none of the server's.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    helper.on('message', (m: HelperMessage) => this.live.get(m.id)?.receive(m));
    helper.on('error', () => undefined);
    helper.once('exit', () => {
      if (this.helper === helper) this.helper = null;
      // Its children's pipes went with it: each is over, without a status.
      for (const c of [...this.live.values()]) c.fail('the process helper exited');
    });
    this.helper = helper;
    this.ref(helper, false);
    return helper;
  }
}

const host = new SpawnHost();

/** Starts a process through the spawn helper (see SpawnHost). */
export function startChild(command: string, args: string[], options: StartOptions): StartedChild {
  return host.start(command, args, options);
}
