import { INTEGRATION_ALIAS_PATTERN, type IntegrationAuthMethod } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { AppError, ValidationError } from '../../platform/errors.js';
import type { EventsService } from '../events/events.service.js';
import type { KeysService } from '../keys/keys.service.js';
import type { TasksService } from '../tasks/tasks.service.js';
import { integrationTaskParams } from './integrations.presenter.js';
import type { ExtractValueRow, IntegrationsRepository, IntegrationWithTemplate } from './integrations.repository.js';
import { authenticate, type WebhookSecret } from './webhook-auth.js';
import type { DeliveryKeys, WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import {
  extractedVariableProblem,
  matches,
  readValue,
  type BodyDataType,
  type Delivery,
  type MatchMethod,
  type ValueSource,
} from './webhook-read.js';
import { bodyHashOf, DELIVERY_REPLAY_WINDOW_MS, deliveryIdOf, type DeliveryId } from './webhook-replay.js';
import type { WorkflowStarter } from '../schedules/workflow-starter.port.js';

/**
 * What a delivery did; the receiver answers 404 unless some integration authenticated it.
 * `repeated`: every integration that authenticated it had taken it already (its delivery id or
 * its content).
 */
export interface DeliveryResult {
  authenticated: boolean;
  /** Tasks started (template integrations). */
  started: number[];
  /** Workflow runs started (workflow integrations). */
  runs: number[];
  repeated: boolean;
}

/**
 * The webhook receiver's logic: find the integrations behind an alias, keep those the delivery
 * authenticates for, and start the task of each whose matchers all match, with the values it
 * extracts. A failure to start one task is logged as an event and does not stop the others.
 * GitHub and Bitbucket deliveries carry a unique id: an integration takes each id once in 24 h,
 * so a retried or replayed delivery starts nothing. The id header is not signed, so each body is
 * taken once too: a replay under a changed or removed id is a repeat all the same. A timestamped
 * hmac delivery is taken once by its signed content (see bodyHashOf). Ids and hashes are only
 * remembered once the delivery authenticated, so nobody without the secret can spend a future
 * delivery's id.
 */
export class WebhookService {
  constructor(
    private readonly repo: IntegrationsRepository,
    private readonly keys: KeysService,
    private readonly tasks: TasksService,
    private readonly events: EventsService,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly clock: Clock,
  ) {}

  /** Starts a workflow integration's run (the composition root wires the workflow-run engine in). */
  workflows: WorkflowStarter | null = null;

  /** `logError` takes unexpected failures (for the request log); their text never reaches the sender. */
  async receive(
    alias: string,
    d: Delivery,
    logError: (err: unknown) => void = () => undefined,
  ): Promise<DeliveryResult> {
    const result: DeliveryResult = { authenticated: false, started: [], runs: [], repeated: false };
    if (!INTEGRATION_ALIAS_PATTERN.test(alias)) return result;
    const row = await this.repo.aliasByValue(alias);
    if (!row) return result;
    const integrations =
      row.integration_id === null
        ? await this.repo.searchable(row.project_id)
        : [await this.repo.find(row.project_id, row.integration_id)].filter((i) => i !== undefined);
    const accepted: Array<{ i: IntegrationWithTemplate; id: DeliveryId; bodyHash: string | null }> = [];
    const now = this.clock.now();
    for (const i of integrations) {
      const method = i.auth_method as IntegrationAuthMethod;
      if (!authenticate(d, method, i.auth_header, await this.secretOf(i), now)) continue;
      accepted.push({ i, id: deliveryIdOf(d, method), bodyHash: bodyHashOf(d, method) });
    }
    if (accepted.length === 0) return result;
    result.authenticated = true;
    // Checked for all before any task starts, so a refused delivery has started nothing.
    const invalid = accepted.find((a) => a.id.kind === 'invalid');
    if (invalid?.id.kind === 'invalid') throw new ValidationError(invalid.id.message, invalid.id.details);
    let repeats = 0;
    for (const { i, id, bodyHash } of accepted) {
      const keys: DeliveryKeys = { deliveryId: id.kind === 'id' ? id.id : null, bodyHash };
      const remembered = keys.deliveryId !== null || keys.bodyHash !== null;
      if (remembered && !(await this.take(i.id, keys))) {
        repeats++;
        continue;
      }
      // An unexpected failure (the sender gets a 500 and retries) must not leave the delivery spent.
      const started = await this.deliver(i, d, logError).catch(async (err: unknown) => {
        if (remembered) await this.deliveries.release(i.id, keys).catch(() => undefined);
        throw err;
      });
      if (started?.kind === 'task') result.started.push(started.id);
      else if (started?.kind === 'run') result.runs.push(started.id);
    }
    result.repeated = repeats === accepted.length;
    return result;
  }

  /** Whether this is the first time (within the window) the integration sees this delivery. */
  private take(integrationId: number, keys: DeliveryKeys): Promise<boolean> {
    const now = this.clock.now();
    const expiredBefore = new Date(now.getTime() - DELIVERY_REPLAY_WINDOW_MS).toISOString();
    return this.deliveries.take(integrationId, keys, now.toISOString(), expiredBefore);
  }

  private async secretOf(i: IntegrationWithTemplate): Promise<WebhookSecret | null> {
    if (i.auth_secret_id === null) return null;
    const key = await this.keys.secretOf(i.project_id, i.auth_secret_id).catch(() => null);
    return key?.type === 'login_password' ? { login: key.login, password: key.password } : null;
  }

  private async deliver(
    i: IntegrationWithTemplate,
    d: Delivery,
    logError: (err: unknown) => void,
  ): Promise<{ kind: 'task' | 'run'; id: number } | null> {
    const matchers = await this.repo.matchers(i.project_id, i.id);
    const matched = matchers.every((m) =>
      matches(
        readValue(d, m.match_type as ValueSource, m.body_data_type as BodyDataType | null, m.key),
        m.method as MatchMethod,
        m.value,
      ),
    );
    if (!matched) return null;
    const { vars, env } = extract(await this.repo.values(i.project_id, i.id), d);
    // A workflow's run hands the values to each of its template nodes' tasks.
    if (i.workflow_id !== null) return this.startRun(i, i.workflow_id, { vars, env }, logError);
    const tp = integrationTaskParams(i.task_params);
    try {
      const task = await this.tasks.create(
        null,
        i.project_id,
        {
          template_id: i.template_id!,
          message: tp.message || `Integration ${i.name}`,
          environment: JSON.stringify({ ...jsonObject(tp.environment), ...vars }),
          secret: '{}',
          params: tp.params ?? {},
        },
        { integrationId: i.id, env },
      );
      await this.record(i, `Integration ${i.name} started task #${task.id}`);
      return { kind: 'task', id: task.id };
    } catch (err) {
      if (!(err instanceof AppError)) logError(err);
      await this.record(
        i,
        `Integration ${i.name} could not start a task: ${err instanceof AppError ? err.message : 'internal error'}`,
      );
      return null;
    }
  }

  /** Like a task's start: a refusal (the workflow gone meanwhile) is an event, not an error for the sender. */
  private async startRun(
    i: IntegrationWithTemplate,
    workflowId: number,
    values: { vars: Record<string, unknown>; env: Record<string, string> },
    logError: (err: unknown) => void,
  ): Promise<{ kind: 'run'; id: number } | null> {
    try {
      if (!this.workflows) throw new Error('workflow runs are not wired in');
      const run = await this.workflows.start(null, i.project_id, workflowId, { integrationId: i.id, values });
      await this.record(i, `Integration ${i.name} started workflow run #${run.id}`);
      return { kind: 'run', id: run.id };
    } catch (err) {
      if (!(err instanceof AppError)) logError(err);
      await this.record(
        i,
        `Integration ${i.name} could not start a workflow run: ${err instanceof AppError ? err.message : 'internal error'}`,
      );
      return null;
    }
  }

  private record(i: IntegrationWithTemplate, description: string): Promise<void> {
    return this.events.record({
      projectId: i.project_id,
      userId: null,
      objectType: 'integration',
      objectId: i.id,
      description,
    });
  }
}

/** Extra variables (JSON values as they are) and environment variables (text) from a delivery. */
function extract(rows: ExtractValueRow[], d: Delivery): { vars: Record<string, unknown>; env: Record<string, string> } {
  const vars: Record<string, unknown> = {};
  const env: Record<string, string> = {};
  for (const x of rows) {
    // Checked when saved too; a row that predates a rule is skipped rather than obeyed.
    if (extractedVariableProblem(x.variable_type, x.variable)) continue;
    const r = readValue(d, x.value_source as ValueSource, x.body_data_type as BodyDataType | null, x.key);
    if (r.kind !== 'value') continue;
    // A process environment cannot hold NUL; such a value is dropped, not passed cut short.
    if (x.variable_type === 'environment') {
      if (!r.text.includes('\0')) env[x.variable] = r.text;
    } else vars[x.variable] = r.value;
  }
  return { vars, env };
}

function jsonObject(text: string | undefined): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
