import { INTEGRATION_ALIAS_PATTERN, type IntegrationAuthMethod } from '@gantry/contracts';
import { AppError } from '../../platform/errors.js';
import type { EventsService } from '../events/events.service.js';
import type { KeysService } from '../keys/keys.service.js';
import type { TasksService } from '../tasks/tasks.service.js';
import { integrationTaskParams } from './integrations.presenter.js';
import type { ExtractValueRow, IntegrationsRepository, IntegrationWithTemplate } from './integrations.repository.js';
import { authenticate, type WebhookSecret } from './webhook-auth.js';
import {
  matches,
  readValue,
  reservedVariableProblem,
  type BodyDataType,
  type Delivery,
  type MatchMethod,
  type ValueSource,
} from './webhook-read.js';

/** What a delivery did; the receiver answers 404 unless some integration authenticated it. */
export interface DeliveryResult {
  authenticated: boolean;
  started: number[];
}

/**
 * The webhook receiver's logic: find the integrations behind an alias, keep those the delivery
 * authenticates for, and start the task of each whose matchers all match, with the values it
 * extracts. A failure to start one task is logged as an event and does not stop the others.
 */
export class WebhookService {
  constructor(
    private readonly repo: IntegrationsRepository,
    private readonly keys: KeysService,
    private readonly tasks: TasksService,
    private readonly events: EventsService,
  ) {}

  /** `logError` takes unexpected failures (for the request log); their text never reaches the sender. */
  async receive(
    alias: string,
    d: Delivery,
    logError: (err: unknown) => void = () => undefined,
  ): Promise<DeliveryResult> {
    const result: DeliveryResult = { authenticated: false, started: [] };
    if (!INTEGRATION_ALIAS_PATTERN.test(alias)) return result;
    const row = await this.repo.aliasByValue(alias);
    if (!row) return result;
    const integrations =
      row.integration_id === null
        ? await this.repo.searchable(row.project_id)
        : [await this.repo.find(row.project_id, row.integration_id)].filter((i) => i !== undefined);
    for (const i of integrations) {
      if (!authenticate(d, i.auth_method as IntegrationAuthMethod, i.auth_header, await this.secretOf(i))) continue;
      result.authenticated = true;
      const taskId = await this.deliver(i, d, logError);
      if (taskId !== null) result.started.push(taskId);
    }
    return result;
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
  ): Promise<number | null> {
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
    const tp = integrationTaskParams(i.task_params);
    try {
      const task = await this.tasks.create(
        null,
        i.project_id,
        {
          template_id: i.template_id,
          message: tp.message || `Integration ${i.name}`,
          environment: JSON.stringify({ ...jsonObject(tp.environment), ...vars }),
          secret: '{}',
          params: tp.params ?? {},
        },
        { integrationId: i.id, env },
      );
      await this.record(i, `Integration ${i.name} started task #${task.id}`);
      return task.id;
    } catch (err) {
      if (!(err instanceof AppError)) logError(err);
      await this.record(
        i,
        `Integration ${i.name} could not start a task: ${err instanceof AppError ? err.message : 'internal error'}`,
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
    if (reservedVariableProblem(x.variable)) continue;
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
