import {
  ErrorCodes,
  type NotificationDelivery,
  type NotificationDestination,
  type NotificationKind,
  type NotificationTestResult,
  type notificationDestinationInputSchema,
} from '@gantry/contracts';
import type { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import { NotFoundError } from '../../platform/errors.js';
import type { Actor } from '../../platform/resource-routes.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import type { EventsService } from '../events/events.service.js';
import { checkDestinationConfig } from './destination-config.js';
import type { DestinationRow, DestinationsRepository } from './destinations.repository.js';
import type { OpenDestination } from './notification-payload.js';
import { parseObject, presentDestination, type LastDelivery } from './notification-routing.presenter.js';

export type DestinationInput = z.output<typeof notificationDestinationInputSchema>;

export interface DestinationsDeps {
  repo: DestinationsRepository;
  box: Pick<SecretBox, 'seal' | 'open'>;
  clock: Clock;
  events: Pick<EventsService, 'record'>;
  /** The latest delivery of each destination (the deliveries repository). */
  lastDeliveries(ids: number[]): Promise<Map<number, LastDelivery>>;
  /** Sends the test event to an opened destination and tells what the receiver answered. */
  sendTest(dest: OpenDestination, project: { id: number; name: string } | null): Promise<NotificationTestResult>;
  projectName(projectId: number): Promise<string | null>;
  /** A destination's delivery log, newest first (the deliveries repository). */
  deliveries(destinationId: number, limit: number, beforeId?: number): Promise<NotificationDelivery[]>;
}

/**
 * Notification destinations of a project, or global ones (`projectId` null, admins: the routes
 * decide who). Secret fields are sealed at rest and only ever opened for a sender.
 */
export class DestinationsService {
  /** Where changes are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  constructor(private readonly d: DestinationsDeps) {}

  async list(projectId: number | null): Promise<NotificationDestination[]> {
    const rows = await this.d.repo.list(projectId);
    const last = await this.d.lastDeliveries(rows.map((r) => r.id));
    return rows.map((r) => this.present(r, last.get(r.id) ?? null));
  }

  async get(projectId: number | null, id: number): Promise<NotificationDestination> {
    const row = await this.row(projectId, id);
    const last = await this.d.lastDeliveries([id]);
    return this.present(row, last.get(id) ?? null);
  }

  async create(actor: Actor, projectId: number | null, input: DestinationInput): Promise<NotificationDestination> {
    const checked = checkDestinationConfig(input.kind, input.config);
    const row = await this.d.repo.insert(
      projectId,
      {
        name: input.name,
        kind: input.kind,
        config: JSON.stringify(checked.config),
        secrets: this.seal(checked.secrets),
        active: input.active === false ? 0 : 1,
      },
      this.d.clock.now().toISOString(),
    );
    const created = this.present(row, null);
    await this.log(actor, projectId, row.id, `Notification destination ${row.name} created`);
    await this.audit.record({
      action: 'create',
      objectType: 'notification_destination',
      objectId: row.id,
      projectId,
      after: created,
      secretsChanged: Object.keys(checked.secrets),
    });
    return created;
  }

  /** A secret omitted, null or '' keeps the stored one, unless the kind changes: then every one is asked again. */
  async update(actor: Actor, projectId: number | null, id: number, input: DestinationInput): Promise<void> {
    const row = await this.row(projectId, id);
    const stored = row.kind === input.kind ? this.openSecrets(row) : {};
    const checked = checkDestinationConfig(input.kind, input.config, stored);
    await this.d.repo.update(projectId, id, {
      name: input.name,
      kind: input.kind,
      config: JSON.stringify(checked.config),
      secrets: this.seal(checked.secrets),
      active: input.active === undefined ? row.active : input.active ? 1 : 0,
    });
    await this.log(actor, projectId, id, `Notification destination ${input.name} updated`);
    const changed = Object.keys(checked.secrets).filter((k) => checked.secrets[k] !== stored[k]);
    await this.audit.record({
      action: 'update',
      objectType: 'notification_destination',
      objectId: id,
      projectId,
      before: this.present(row, null),
      after: this.present(await this.row(projectId, id), null),
      secretsChanged: changed,
    });
  }

  /** Its rules and its delivery log go with it. */
  async delete(actor: Actor, projectId: number | null, id: number): Promise<void> {
    const row = await this.row(projectId, id);
    await this.d.repo.delete(projectId, id);
    await this.log(actor, projectId, id, `Notification destination ${row.name} deleted`);
    await this.audit.record({
      action: 'delete',
      objectType: 'notification_destination',
      objectId: id,
      projectId,
      before: this.present(row, null),
    });
  }

  /** "Send test": the receiver's answer, also when it failed (the route answers 200 either way). */
  async test(projectId: number | null, id: number): Promise<NotificationTestResult> {
    const row = await this.row(projectId, id);
    const name = projectId === null ? null : await this.d.projectName(projectId);
    return this.d.sendTest(this.opened(row), projectId === null ? null : { id: projectId, name: name ?? '' });
  }

  /** Its delivery log, newest first; `beforeId` pages on. */
  async deliveries(
    projectId: number | null,
    id: number,
    limit: number,
    beforeId?: number,
  ): Promise<NotificationDelivery[]> {
    await this.row(projectId, id);
    return this.d.deliveries(id, limit, beforeId);
  }

  /** For the delivery worker: the destination a queued row names, its secrets opened; null when gone or off. */
  async open(id: number): Promise<OpenDestination | null> {
    const row = await this.d.repo.findAny(id);
    return row && row.active === 1 ? this.opened(row) : null;
  }

  /** Checks that the destination exists in this scope (rules name it). */
  async exists(projectId: number | null, id: number): Promise<boolean> {
    return (await this.d.repo.find(projectId, id)) !== undefined;
  }

  private async row(projectId: number | null, id: number): Promise<DestinationRow> {
    const row = await this.d.repo.find(projectId, id);
    if (!row)
      throw new NotFoundError('Notification destination not found', {
        code: ErrorCodes.notificationDestinationNotFound,
      });
    return row;
  }

  private opened(row: DestinationRow): OpenDestination {
    return {
      id: row.id,
      projectId: row.project_id,
      name: row.name,
      kind: row.kind as NotificationKind,
      config: parseObject(row.config),
      secrets: this.openSecrets(row),
    };
  }

  private present(row: DestinationRow, last: LastDelivery | null): NotificationDestination {
    return presentDestination(row, this.openSecrets(row), last);
  }

  private seal(secrets: Record<string, string>): string {
    return Object.keys(secrets).length === 0 ? '' : this.d.box.seal(JSON.stringify(secrets));
  }

  private openSecrets(row: DestinationRow): Record<string, string> {
    if (!row.secrets) return {};
    const opened = parseObject(this.d.box.open(row.secrets));
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(opened)) if (typeof v === 'string') out[k] = v;
    return out;
  }

  private async log(actor: Actor, projectId: number | null, id: number, description: string): Promise<void> {
    await this.d.events.record({
      projectId,
      userId: actor.id,
      objectType: 'notification_destination',
      objectId: id,
      description,
    });
  }
}
