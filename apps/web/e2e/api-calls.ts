// The API as the specs that make their data up front call it (a request context signed in).
import { expect, type APIRequestContext } from '@playwright/test';

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
    .poll(async () => (await apiGet<{ status: string }>(request, `/api/project/${p}/tasks/${task.id}`)).status, { timeout: 60_000 })
    .toMatch(/^(success|error|stopped)$/);
  return task.id;
}
