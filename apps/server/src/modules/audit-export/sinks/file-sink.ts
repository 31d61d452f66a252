import fs from 'node:fs/promises';
import type { ExportedAuditEntry, ExportSink } from '../export-sink.js';

/** How much of the file's end is read to find the last entry written (an entry is far smaller). */
const TAIL_BYTES = 1024 * 1024;

/**
 * JSON lines appended to a file on this node, one entry a line, synced to disk before the cursor
 * moves. Past `maxBytes` the file is rotated: `path` becomes `path.1`, `path.1` becomes
 * `path.2` … up to `path.<keep>` (the oldest beyond is deleted; keep 0: none is kept).
 */
export class FileSink implements ExportSink {
  readonly kind = 'file' as const;
  readonly format = 'jsonl';
  readonly key: string;
  readonly target: string;

  constructor(
    private readonly file: { path: string; maxBytes: number; keep: number },
    nodeId: string,
  ) {
    // Each node writes the whole trail to its own file: the cursor is the node's.
    this.key = `file:${nodeId}`;
    this.target = file.path;
  }

  async send(entries: readonly ExportedAuditEntry[]): Promise<void> {
    let text = entries.map((e) => `${JSON.stringify(e)}\n`).join('');
    const size = await fs.stat(this.file.path).then(
      (s) => s.size,
      () => 0,
    );
    if (size > 0 && size + Buffer.byteLength(text) > this.file.maxBytes) await this.rotate();
    const fh = await fs.open(this.file.path, 'a+', 0o640);
    try {
      // A line cut short by a crash is ended first, so the next entry starts a line of its own.
      const { size: now } = await fh.stat();
      if (now > 0) {
        const last = Buffer.alloc(1);
        await fh.read(last, 0, 1, now - 1);
        if (last[0] !== 0x0a) text = `\n${text}`;
      }
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
  }

  /** The id on the last complete line of the file (or of the newest rotated one when the file is new). */
  async lastDelivered(): Promise<number | null> {
    for (const file of [this.file.path, `${this.file.path}.1`]) {
      const id = await lastId(file);
      if (id !== null) return id;
    }
    return null;
  }

  private async rotate(): Promise<void> {
    const { path, keep } = this.file;
    if (keep === 0) return fs.rm(path, { force: true });
    await fs.rm(`${path}.${keep}`, { force: true });
    for (let i = keep - 1; i >= 1; i--) await fs.rename(`${path}.${i}`, `${path}.${i + 1}`).catch(ignoreMissing);
    await fs.rename(path, `${path}.1`);
  }
}

function ignoreMissing(e: NodeJS.ErrnoException): void {
  if (e.code !== 'ENOENT') throw e;
}

async function lastId(file: string): Promise<number | null> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(file, 'r');
  } catch {
    return null;
  }
  try {
    const { size } = await fh.stat();
    const length = Math.min(size, TAIL_BYTES);
    const buf = Buffer.alloc(length);
    await fh.read(buf, 0, length, size - length);
    // Only lines ended by a newline were written whole.
    const lines = buf.toString('utf8').split('\n').slice(0, -1).reverse();
    for (const line of lines) {
      try {
        const id = (JSON.parse(line) as { id?: unknown }).id;
        if (typeof id === 'number') return id;
      } catch {
        // A line cut by the tail's start, or not ours: look further up.
      }
    }
    return null;
  } finally {
    await fh.close();
  }
}
