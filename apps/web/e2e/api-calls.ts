// The API as the specs that make their data up front call it (a request context signed in).
import { expect, type APIRequestContext } from '@playwright/test';
import { gitRepo } from './repo';

const H = { 'x-gantry-request': '1' };

/** POST that must succeed; answers the parsed body (undefined when empty). */
export async function apiPost<T>(request: APIRequestContext, url: string, data?: unknown): Promise<T> {
  const res = await request.post(url, { data, headers: H });
  const text = await res.text();
  expect(res.ok(), `POST ${url}: ${res.status()} ${text}`).toBe(true);
  return (text ? JSON.parse(text) : undefined) as T;
}

export async function apiGet<T>(request: APIRequestContext, url: string): Promise<T> {
  return (await (await request.get(url)).json()) as T;
}

/** Runs a template and waits until its task has finished; answers the task's id. */
export async function runToEnd(request: APIRequestContext, p: number, templateId: number): Promise<number> {
  const task = await apiPost<{ id: number }>(request, `/api/project/${p}/tasks`, { template_id: templateId });
  await expect
    .poll(async () => (await apiGet<{ status: string }>(request, `/api/project/${p}/tasks/${task.id}`)).status, {
      timeout: 60_000,
    })
    .toMatch(/^(success|error|stopped)$/);
  return task.id;
}

/** What a script template needs in project p: a `none` key, a local repository of `files`, an empty variable group. */
export async function scriptsRepo(
  request: APIRequestContext,
  p: number,
  files: Record<string, string>,
): Promise<{ repoId: number; envId: number }> {
  const key = await apiPost<{ id: number }>(request, `/api/project/${p}/keys`, { name: 'none', type: 'none' });
  const repo = await apiPost<{ id: number }>(request, `/api/project/${p}/repositories`, {
    name: 'scripts',
    git_url: gitRepo(files),
    ssh_key_id: key.id,
  });
  const env = await apiPost<{ id: number }>(request, `/api/project/${p}/environment`, { name: 'defaults', json: '{}' });
  return { repoId: repo.id, envId: env.id };
}
