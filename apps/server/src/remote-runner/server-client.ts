import {
  runnerPollResponseSchema,
  type RunnerLogBody,
  type RunnerPollResponse,
  type RunnerStatusBody,
  type RunnerTerraformBody,
} from '@gantry/contracts';

/** The runner's side of the HTTP protocol; an adapter so the agent can be tested with a fake. */
export interface RunnerServer {
  poll(running: number[]): Promise<RunnerPollResponse>;
  log(taskId: number, body: RunnerLogBody): Promise<void>;
  status(taskId: number, body: RunnerStatusBody): Promise<void>;
  /** A plan summary or a drift finding of a Terraform/OpenTofu task (absent in fakes that do not care). */
  terraform?(taskId: number, body: RunnerTerraformBody): Promise<void>;
}

export class RunnerHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Calls the Gantry server with the runner's bearer token; never logs the token. */
export function httpRunnerServer(baseUrl: string, token: string, fetchFn: typeof fetch = fetch): RunnerServer {
  const call = async (path: string, body: unknown): Promise<unknown> => {
    const res = await fetchFn(`${baseUrl}/api/internal/runners${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      let message = text;
      try {
        message = (JSON.parse(text) as { error?: string }).error ?? text;
      } catch {
        // Not JSON: keep the text.
      }
      throw new RunnerHttpError(res.status, `${path}: ${res.status} ${message}`.trim());
    }
    return res.status === 204 ? null : res.json();
  };
  return {
    poll: async (running) => runnerPollResponseSchema.parse(await call('/poll', { running })),
    log: async (taskId, body) => void (await call(`/tasks/${taskId}/log`, body)),
    status: async (taskId, body) => void (await call(`/tasks/${taskId}/status`, body)),
    terraform: async (taskId, body) => void (await call(`/tasks/${taskId}/terraform`, body)),
  };
}
