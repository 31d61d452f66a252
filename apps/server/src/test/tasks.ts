import { isFinished } from '@gantry/contracts';
import type { Caller } from './harness.js';
import { createKey } from './resources.js';

export interface TemplateSetup {
  projectId: number;
  templateId: number;
  keyId: number;
  repositoryId: number;
  environmentId: number;
}

/** A project resource set around a local repository, and a template of the given app on it. */
export async function setupTemplate(
  c: Caller,
  projectId: number,
  repoPath: string,
  template: Record<string, unknown>,
  environment: Record<string, unknown> = {},
): Promise<TemplateSetup> {
  const keyId = await createKey(c, projectId);
  const repo = await c.post(`/api/project/${projectId}/repositories`, { name: 'repo', git_url: repoPath, ssh_key_id: keyId });
  if (repo.statusCode !== 201) throw new Error(`repository: ${repo.body}`);
  const env = await c.post(`/api/project/${projectId}/environment`, { name: 'env', json: '{}', env: '{}', ...environment });
  if (env.statusCode !== 201) throw new Error(`environment: ${env.body}`);
  const tpl = await c.post(`/api/project/${projectId}/templates`, {
    name: 'tpl',
    app: 'bash',
    repository_id: repo.json().id,
    environment_id: env.json().id,
    ...template,
  });
  if (tpl.statusCode !== 201) throw new Error(`template: ${tpl.body}`);
  return { projectId, templateId: tpl.json().id, keyId, repositoryId: repo.json().id, environmentId: env.json().id };
}

/**
 * A bash build template (build.sh, starting at `startVersion`) and a deploy template of it
 * (deploy.sh) on one repository; answers the build's set-up and the deploy template's id.
 */
export async function setupBuildAndDeploy(
  c: Caller,
  projectId: number,
  repoPath: string,
  startVersion: string,
): Promise<TemplateSetup & { deployTemplateId: number }> {
  const build = await setupTemplate(c, projectId, repoPath, {
    name: 'build',
    app: 'bash',
    playbook: 'build.sh',
    type: 'build',
    start_version: startVersion,
  });
  const deploy = await c.post(`/api/project/${projectId}/templates`, {
    name: 'deploy',
    app: 'bash',
    playbook: 'deploy.sh',
    type: 'deploy',
    build_template_id: build.templateId,
    repository_id: build.repositoryId,
    environment_id: build.environmentId,
  });
  if (deploy.statusCode !== 201) throw new Error(`deploy template: ${deploy.body}`);
  return { ...build, deployTemplateId: deploy.json().id };
}

export async function runTask(c: Caller, projectId: number, body: Record<string, unknown>): Promise<number> {
  const res = await c.post(`/api/project/${projectId}/tasks`, body);
  if (res.statusCode !== 201) throw new Error(`task: ${res.statusCode} ${res.body}`);
  return res.json<{ id: number }>().id;
}

/** Polls the task until its status is one of `statuses` (default: any final one). */
export async function waitForTask(c: Caller, projectId: number, taskId: number, statuses?: string[], timeoutMs = 60_000): Promise<{ status: string; [k: string]: unknown }> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const task = (await c.get(`/api/project/${projectId}/tasks/${taskId}`)).json();
    if (statuses ? statuses.includes(task.status) : isFinished(task.status)) return task;
    if (Date.now() > until) throw new Error(`task ${taskId} still ${task.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function taskLog(c: Caller, projectId: number, taskId: number): Promise<string[]> {
  // Colours are kept in the stored log (the console renders them); tests read plain text.
  // eslint-disable-next-line no-control-regex
  return (await c.get(`/api/project/${projectId}/tasks/${taskId}/output`)).json().map((l: { output: string }) => l.output.replace(/\u001b\[[0-9;]*m/g, ''));
}
