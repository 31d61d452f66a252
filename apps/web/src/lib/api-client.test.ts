import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, api, onSessionRestored, onUnauthorized, registerSessionRecovery } from './api-client';

/** A fetch that answers 401 until `signIn()` is called, then 200 with `{ url, body }`. */
function fakeServer() {
  let signedIn = false;
  const calls: string[] = [];
  const fetch = vi.fn(async (url: string, init?: RequestInit) => {
    calls.push(`${init?.method ?? 'GET'} ${url}`);
    if (!signedIn) return new Response(JSON.stringify({ error: 'Unauthorized' }), { status: 401, statusText: 'Unauthorized' });
    return new Response(JSON.stringify({ url, body: init?.body ?? null }), { status: 200 });
  });
  vi.stubGlobal('fetch', fetch);
  return { calls, signIn: () => (signedIn = true) };
}

afterEach(() => vi.unstubAllGlobals());

describe('a 401 while signed in', () => {
  it('waits for one sign-in however many calls met it, then sends each again', async () => {
    const server = fakeServer();
    let asked = 0;
    let finish: (restored: boolean) => void = () => undefined;
    const off = registerSessionRecovery(() => {
      asked += 1;
      return new Promise<boolean>((resolve) => (finish = resolve));
    });
    const restored = vi.fn();
    const offRestored = onSessionRestored(restored);
    const save = api.put<{ body: string }>('/project/1', { name: 'typed' });
    const list = api.get<{ url: string }>('/projects');
    await vi.waitFor(() => expect(asked).toBe(1));
    await new Promise((r) => setTimeout(r, 10));
    expect(asked).toBe(1);
    server.signIn();
    finish(true);
    await expect(save).resolves.toEqual({ url: '/api/project/1', body: JSON.stringify({ name: 'typed' }) });
    await expect(list).resolves.toMatchObject({ url: '/api/projects' });
    expect(server.calls.filter((c) => c === 'PUT /api/project/1')).toHaveLength(2);
    expect(restored).toHaveBeenCalledTimes(1);
    offRestored();
    off();
  });

  it('fails the calls when the sign-in is given up (or someone else signed in)', async () => {
    fakeServer();
    const off = registerSessionRecovery(async () => false);
    await expect(api.post('/project/1/keys', { name: 'k' })).rejects.toMatchObject({ status: 401 });
    off();
  });

  it('leaves the sign-in calls themselves alone, and goes to sign-in when no page is signed in', async () => {
    const server = fakeServer();
    const recovery = vi.fn(async () => true);
    const off = registerSessionRecovery(recovery);
    await expect(api.post('/auth/login', { auth: 'a', password: 'b' }, { quiet401: true })).rejects.toBeInstanceOf(ApiError);
    expect(recovery).not.toHaveBeenCalled();
    off();

    const toSignIn = vi.fn();
    const offListener = onUnauthorized(toSignIn);
    await expect(api.get('/user')).rejects.toMatchObject({ status: 401 });
    expect(toSignIn).toHaveBeenCalledTimes(1);
    expect(server.calls).toEqual(['POST /api/auth/login', 'GET /api/user']);
    offListener();
  });

  it('after the console signed out itself, the 401s that follow lead to sign-in, not to the dialog', async () => {
    fakeServer();
    const recovery = vi.fn(async () => true);
    const off = registerSessionRecovery(recovery);
    const toSignIn = vi.fn();
    const offListener = onUnauthorized(toSignIn);
    await api.post('/auth/logout').catch(() => undefined);
    await expect(api.get('/projects')).rejects.toMatchObject({ status: 401 });
    expect(recovery).not.toHaveBeenCalled();
    expect(toSignIn).toHaveBeenCalled();
    offListener();
    off();
  });
});
