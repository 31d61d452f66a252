import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { prefetchSession, queryClient } from '../lib/query-client';
import { FIRST_ROUTES, firstRouteOf } from './first-routes';

afterEach(() => {
  vi.unstubAllGlobals();
  queryClient.clear();
});

const web = path.resolve(import.meta.dirname, '../..');

describe('first routes', () => {
  it('picks the screens a first load of each kind of address renders', () => {
    const dashboard = ['src/app/shell/app-shell.tsx', 'src/app/screens/project-dashboard.ts'];
    expect(firstRouteOf('/auth/login')?.modules).toEqual(['src/app/screens/sign-in.tsx']);
    expect(firstRouteOf('/')?.modules).toEqual(dashboard);
    expect(firstRouteOf('/project/12')?.modules).toEqual(dashboard);
    expect(firstRouteOf('/project/12/history')?.modules).toEqual(dashboard);
    expect(firstRouteOf('/project/12/stats/')?.modules).toEqual(dashboard);
    expect(firstRouteOf('/project/12/templates/3')?.modules).toContain('src/app/screens/templates.ts');
    expect(firstRouteOf('/project/12/views/2/templates')?.modules).toContain('src/app/screens/templates.ts');
    expect(firstRouteOf('/project/12/keys')?.modules).toEqual(['src/app/shell/app-shell.tsx']);
    expect(firstRouteOf('/project/12/history/extra')?.modules).toEqual(['src/app/shell/app-shell.tsx']);
  });

  // The server preloads these calls with the page; a preload the entry does not make is wasted,
  // and one it makes that is missing waits for the entry.
  it('names for each address exactly the API calls the entry makes at once', async () => {
    for (const page of ['/', '/project/5', '/project/5/history', '/project/5/stats', '/project/5/templates', '/project/5/keys', '/approvals']) {
      const calls: string[] = [];
      vi.stubGlobal(
        'fetch',
        vi.fn(async (url: string) => {
          calls.push(url);
          return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
        }),
      );
      queryClient.clear();
      prefetchSession(page);
      await vi.waitFor(() => expect(calls.length).toBeGreaterThan(0));
      await new Promise((r) => setTimeout(r, 20));
      const project = /^\/project\/(\d+)/.exec(page)?.[1];
      const expected = firstRouteOf(page)!
        .data.filter((u) => project || !u.includes('{project}'))
        .map((u) => u.replace('{project}', project ?? ''));
      expect(calls.sort(), page).toEqual(expected.sort());
      vi.unstubAllGlobals();
    }
  });

  it('names only modules that exist, each of which main.tsx knows how to import', () => {
    const main = fs.readFileSync(path.join(web, 'src/main.tsx'), 'utf8');
    for (const m of new Set(FIRST_ROUTES.flatMap((r) => r.modules))) {
      expect(fs.existsSync(path.join(web, m)), m).toBe(true);
      expect(main, m).toContain(`'${m}':`);
    }
  });
});
