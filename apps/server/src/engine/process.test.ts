import os from 'node:os';
import { describe, expect, it } from 'vitest';
import type { OutputFlow } from './log-sink.js';
import { MAX_LINE_CHARS, createProcessLauncher } from './process.js';

const unsandboxed = { active: false, wrap: () => ({ command: '', args: [], cwd: '', env: {} }) };
const launcher = createProcessLauncher(unsandboxed);
const spec = (args: string[]) => ({ command: 'sh', args: ['-c', ...args], cwd: os.tmpdir(), env: { PATH: '/usr/bin:/bin' } });

/** A flow the test saturates and releases by hand. */
class ManualFlow implements OutputFlow {
  saturated = false;
  private waiters: Array<() => void> = [];
  onDrain(fn: () => void): void {
    if (!this.saturated) fn();
    else this.waiters.push(fn);
  }
  release(): void {
    this.saturated = false;
    const w = this.waiters;
    this.waiters = [];
    w.forEach((f) => f());
  }
}

describe('process launcher', () => {
  it('stops reading the output while the flow is saturated and goes on once it drains: no line lost', async () => {
    const flow = new ManualFlow();
    const seen: string[] = [];
    flow.saturated = true;
    const p = launcher.start(spec(['seq 1 200000']), (l) => seen.push(l), flow);
    await new Promise((r) => setTimeout(r, 300));
    // Paused after the first read: the child waits on its full pipe instead of the server buffering its output.
    const whilePaused = seen.length;
    expect(whilePaused).toBeLessThan(200_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(seen.length).toBe(whilePaused);
    flow.release();
    const r = await p.done;
    expect(r.code).toBe(0);
    expect(seen).toHaveLength(200_000);
    expect(seen.at(-1)).toBe('200000');
  });

  it('hands a line without newlines on in pieces of at most 64 KiB, and keeps multi-byte characters whole', async () => {
    const seen: string[] = [];
    const p = launcher.start(spec(["yes a | head -n 200000 | tr -d '\\n'; yes é | head -n 40000 | tr -d '\\n'"]), (l) => seen.push(l));
    await p.done;
    expect(seen.every((l) => l.length <= MAX_LINE_CHARS)).toBe(true);
    const text = seen.join('');
    expect(text).toBe('a'.repeat(200_000) + 'é'.repeat(40_000));
  });
});
