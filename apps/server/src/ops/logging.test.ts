import { execFileSync } from 'node:child_process';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { RequestLogController, loggerOptions } from './logging.js';

describe('loggerOptions', () => {
  it('writes JSON lines when stdout is not a terminal', () => {
    expect(loggerOptions('info', { tty: false })).toEqual({ level: 'info' });
    expect(loggerOptions('silent', { tty: true })).toBe(false);
  });

  it('uses pino-pretty single lines on a terminal, by its absolute path', () => {
    const options = loggerOptions('debug', { tty: true });
    expect(options).toMatchObject({ level: 'debug', transport: { options: { singleLine: true } } });
    expect(options && options.transport?.target).toMatch(/^\/.*pino-pretty/);
  });

  it('prints one readable line per entry through pino-pretty', () => {
    const options = loggerOptions('info', { tty: true });
    // pino-pretty runs in pino's worker thread and writes to stdout: run it in a child to read that.
    const script = `const pino = require('pino'); pino(${JSON.stringify(options)}).info({ task: 7 }, 'hello from gantry');`;
    const out = execFileSync(process.execPath, ['-e', script], {
      cwd: import.meta.dirname,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(1);
    // eslint-disable-next-line no-control-regex
    expect(lines[0]!.replace(/\u001b\[[0-9;]*m/g, '')).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: hello from gantry \{"task":7\}$/,
    );
  });

  it('falls back to JSON when pino-pretty cannot be loaded', () => {
    const missing = () => {
      throw new Error('Cannot find module pino-pretty');
    };
    expect(loggerOptions('info', { tty: true, resolve: missing })).toEqual({ level: 'info' });
  });
});

describe('RequestLogController', () => {
  async function logsOf(level: string): Promise<Array<{ level: number; msg: string }>> {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const app = Fastify({ loggerInstance: pino({ level }, stream), logController: new RequestLogController() });
    app.get('/ok', async () => ({ ok: true }));
    app.get('/boom', async () => {
      throw new Error('boom');
    });
    await app.inject({ url: '/ok' });
    await app.inject({ url: '/missing' });
    await app.inject({ url: '/boom' });
    await app.close();
    return lines.map((l) => JSON.parse(l));
  }

  it('says nothing per request at info', async () => {
    const logs = await logsOf('info');
    expect(logs.filter((l) => /request|not found/.test(l.msg))).toEqual([]);
    // Failures still show.
    expect(logs.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual(['boom']);
  });

  it('logs incoming and completed requests at debug', async () => {
    const logs = await logsOf('debug');
    const perRequest = logs.filter((l) => /incoming request|request completed|not found/.test(l.msg));
    expect(perRequest.map((l) => l.msg)).toEqual([
      'incoming request',
      'request completed',
      'incoming request',
      'Route GET:/missing not found',
      'request completed',
      'incoming request',
      'request completed',
    ]);
    expect(new Set(perRequest.map((l) => l.level))).toEqual(new Set([20]));
  });
});
