import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nextTask } from './boot-steps';

const app = import.meta.dirname;
const web = path.resolve(app, '../..');
/** The modules a file imports (dynamically or by re-export), as paths from apps/web. */
const importedBy = (file: string, pattern: RegExp) => {
  const code = fs.readFileSync(path.join(app, file), 'utf8');
  return [...code.matchAll(pattern)].map((m) => {
    const base = path.relative(web, path.resolve(app, m[1]!));
    const found = ['.ts', '.tsx'].map((ext) => base + ext).find((f) => fs.existsSync(path.join(web, f)));
    return found ?? base;
  });
};

describe('the entry in steps', () => {
  // The build puts what boot-entry.ts imports in the entry's file; a step it does not know would
  // cost the page a request nothing preloads.
  it('imports step by step exactly the modules the build puts in the entry', () => {
    const steps = importedBy('boot-steps.ts', /import\('([^']+)'\)/g).sort();
    expect(steps.length).toBeGreaterThan(0);
    expect(importedBy('boot-entry.ts', /from '([^']+)'/g).sort()).toEqual(steps);
  });

  it('gives the event loop a turn between steps (a task, not a microtask)', async () => {
    const order: string[] = [];
    setTimeout(() => order.push('timer queued before'), 0);
    void Promise.resolve().then(() => order.push('microtask'));
    await nextTask();
    order.push('next step');
    expect(order).toEqual(['microtask', 'timer queued before', 'next step']);
  });
});
