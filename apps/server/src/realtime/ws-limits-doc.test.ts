import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WS_MAX_MESSAGES_PER_SECOND } from './ws.routes.js';

const README = fs.readFileSync(path.resolve(import.meta.dirname, '../../../../README.md'), 'utf8');

describe('README on the live socket', () => {
  it('names the message rate that closes a socket as the code enforces it', () => {
    const said = /more than (\d+) messages a second/.exec(README);
    expect(said, 'README states the rate').not.toBeNull();
    expect(Number(said![1])).toBe(WS_MAX_MESSAGES_PER_SECOND);
  });
});
