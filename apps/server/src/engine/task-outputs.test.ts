import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TASK_OUTPUT_MAX_BYTES } from '@gantry/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  OUTPUT_FILE,
  OUTPUT_NOT_OBJECT,
  OUTPUT_TOO_DEEP,
  OUTPUT_TOO_LARGE,
  parseStoredObject,
  parseTaskOutput,
  readTaskOutput,
} from './task-outputs.js';

describe('a task output file', () => {
  let root: string;
  let outside: string;
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-out-')));
    outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-outside-')));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });
  const write = (content: string | Buffer) => fs.writeFileSync(path.join(root, OUTPUT_FILE), content);

  it('is absent: no output', () => {
    expect(readTaskOutput(root)).toBeNull();
  });

  it('holds an object: taken as it is', () => {
    write('{"version": "1.2.3", "hosts": ["a", "b"], "n": 3, "deep": {"x": null}}');
    expect(readTaskOutput(root)).toEqual({ version: '1.2.3', hosts: ['a', 'b'], n: 3, deep: { x: null } });
  });

  it('holds an array, a string, a number, null or no JSON at all: refused', () => {
    for (const text of ['[1,2]', '"text"', '42', 'null', '{"a": 1', '', 'not json']) {
      write(text);
      expect(() => readTaskOutput(root), text).toThrow(OUTPUT_NOT_OBJECT);
    }
  });

  it('is larger than 1 MiB: refused without reading it all, saying the limit', () => {
    write(`{"a": "${'x'.repeat(TASK_OUTPUT_MAX_BYTES)}"}`);
    expect(() => readTaskOutput(root)).toThrow(OUTPUT_TOO_LARGE);
    expect(OUTPUT_TOO_LARGE).toContain('larger than 1 MiB');
  });

  it('is exactly 1 MiB: taken', () => {
    const prefix = '{"a": "';
    write(prefix + 'x'.repeat(TASK_OUTPUT_MAX_BYTES - prefix.length - 2) + '"}');
    expect(fs.statSync(path.join(root, OUTPUT_FILE)).size).toBe(TASK_OUTPUT_MAX_BYTES);
    expect(readTaskOutput(root)?.a).toHaveLength(TASK_OUTPUT_MAX_BYTES - prefix.length - 2);
  });

  it('grows past 1 MiB when written out (short numbers that expand): refused too', () => {
    // "1e20" is 4 bytes in the file and 21 as stored.
    const items = Math.floor(TASK_OUTPUT_MAX_BYTES / 5);
    expect(() => parseTaskOutput(`{"a": [${Array(items).fill('1e20').join(',')}]}`)).toThrow(OUTPUT_TOO_LARGE);
  });

  it('nests deeper than the limit: refused', () => {
    expect(() => parseTaskOutput(`{"a": ${'['.repeat(100)}${']'.repeat(100)}}`)).toThrow(OUTPUT_TOO_DEEP);
    expect(parseTaskOutput(`{"a": ${'['.repeat(10)}${']'.repeat(10)}}`)).toEqual({ a: [[[[[[[[[[]]]]]]]]]] });
  });

  it('is a link (to a JSON object outside, to /etc/passwd): never followed', () => {
    fs.writeFileSync(path.join(outside, 'secret.json'), '{"secret": "s3cr3t"}');
    for (const target of [path.join(outside, 'secret.json'), '/etc/passwd']) {
      fs.rmSync(path.join(root, OUTPUT_FILE), { force: true });
      fs.symlinkSync(target, path.join(root, OUTPUT_FILE));
      expect(() => readTaskOutput(root)).toThrow(/not read: it is a symbolic link/);
    }
  });

  it('is a hard link to a file outside, or a folder: refused', () => {
    fs.writeFileSync(path.join(outside, 'secret.json'), '{"secret": "s3cr3t"}');
    fs.linkSync(path.join(outside, 'secret.json'), path.join(root, OUTPUT_FILE));
    expect(() => readTaskOutput(root)).toThrow(/other hard links/);
    fs.rmSync(path.join(root, OUTPUT_FILE));
    fs.mkdirSync(path.join(root, OUTPUT_FILE));
    expect(() => readTaskOutput(root)).toThrow(/a folder/);
  });
});

describe('stored objects', () => {
  it('read back as objects, anything else as none', () => {
    expect(parseStoredObject('{"a":1}')).toEqual({ a: 1 });
    for (const t of [null, undefined, '', '[1]', 'x', 'null']) expect(parseStoredObject(t)).toBeNull();
  });
});
