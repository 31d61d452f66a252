import {
  APP_ID_MESSAGE,
  APP_ID_PATTERN,
  APP_IDS,
  appTakesArgs,
  cannotDeleteMessage,
  hasReferences,
  isBuiltinApp,
  type App,
  type appCreateSchema,
  type appUpdateSchema,
  ErrorCodes,
} from '@gantry/contracts';
import type { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import type { Actor } from '../../platform/resource-routes.js';
import type { EventsService } from '../events/events.service.js';
import type { ReferencesRepository } from '../references/references.repository.js';
import { builtinDefaults, presentApp } from './apps.presenter.js';
import type { AppRow, AppsRepository, AppValues } from './apps.repository.js';
import type { ExecutableFinder } from './executable-finder.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';

export type AppCreateInput = z.output<typeof appCreateSchema>;
export type AppUpdateInput = z.output<typeof appUpdateSchema>;

/**
 * The task applications: the built-ins merged with the rows admins saved (a row overrides a
 * built-in's settings), plus custom apps. An app without an admin's on/off choice is active
 * when its executable is found. Read on every call, so a change applies to the next task.
 */
export class AppsService {
  constructor(
    private readonly repo: AppsRepository,
    private readonly refsRepo: ReferencesRepository,
    private readonly events: EventsService,
    private readonly clock: Clock,
    private readonly isFound: ExecutableFinder,
  ) {}

  /** Every app, highest priority first, then by title. */
  async list(): Promise<App[]> {
    const rows = new Map((await this.repo.list()).map((r) => [r.id, r]));
    const apps = [
      ...APP_IDS.map((id) => this.present(rows.get(id) ?? builtinDefaults(id))),
      ...[...rows.values()].filter((r) => !isBuiltinApp(r.id)).map((r) => this.present(r)),
    ];
    return apps.sort((a, b) => b.priority - a.priority || a.title.localeCompare(b.title) || a.id.localeCompare(b.id));
  }

  /** One app as configured now, or null when there is no such app. */
  async find(id: string): Promise<App | null> {
    const row = await this.repo.find(id);
    if (row) return this.present(row);
    return isBuiltinApp(id) ? this.present(builtinDefaults(id)) : null;
  }

  async get(id: string): Promise<App> {
    const app = await this.find(id);
    if (!app) throw new NotFoundError('App not found', { code: ErrorCodes.appNotFound });
    return app;
  }

  async exists(id: string): Promise<boolean> {
    return (await this.find(id)) !== null;
  }

  /** Where changes are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  async create(actor: Actor, input: AppCreateInput): Promise<App> {
    if (isBuiltinApp(input.id) || (await this.repo.find(input.id)))
      throw new ConflictError(`App ${input.id} already exists`, { code: ErrorCodes.appExists, app: input.id });
    await this.repo.insert(input.id, { ...this.values(input.id, input), active: this.activeOf(input) ?? null }, this.now());
    await this.log(actor, `App ${input.title} (${input.id}) created`);
    const created = await this.get(input.id);
    await this.audit.record({ action: 'create', objectType: 'app', objectId: input.id, after: created });
    return created;
  }

  async update(actor: Actor, id: string, input: AppUpdateInput): Promise<App> {
    const before = await this.get(id);
    const active = this.activeOf(input);
    await this.save(id, { ...this.values(id, input), ...(active === undefined ? {} : { active }) });
    await this.log(actor, `App ${input.title} (${id}) updated`);
    const after = await this.get(id);
    await this.audit.record({ action: 'update', objectType: 'app', objectId: id, before, after });
    return after;
  }

  /** Semaphore's `POST /apps/{id}`: saves the app, creating it when there is none by that id. */
  async upsert(actor: Actor, id: string, input: AppUpdateInput): Promise<App> {
    if (await this.exists(id)) return this.update(actor, id, input);
    if (!APP_ID_PATTERN.test(id)) throw new ValidationError(APP_ID_MESSAGE, { code: ErrorCodes.appIdInvalid });
    return this.create(actor, { ...input, id });
  }

  async setActive(actor: Actor, id: string, active: boolean): Promise<void> {
    const app = await this.get(id);
    await this.save(id, { active: active ? 1 : 0 });
    await this.log(actor, `App ${app.title} (${id}) ${active ? 'activated' : 'deactivated'}`);
    await this.audit.record({ action: 'update', objectType: 'app', objectId: id, before: { active: app.active }, after: { active } });
  }

  /** Custom apps only, and only while no template uses them. */
  async delete(actor: Actor, id: string): Promise<void> {
    if (isBuiltinApp(id)) throw new ValidationError('Default apps cannot be deleted', { code: ErrorCodes.builtinAppDelete });
    const app = await this.get(id);
    const refs = await this.refsRepo.forApp(id);
    if (hasReferences(refs)) throw new ConflictError(cannotDeleteMessage('app'), { code: ErrorCodes.appInUse, references: refs });
    await this.repo.delete(id);
    await this.log(actor, `App ${app.title} (${id}) deleted`);
    await this.audit.record({ action: 'delete', objectType: 'app', objectId: id, before: app });
  }

  /** A built-in gets its row on its first change, starting from its defaults. */
  private async save(id: string, values: Partial<AppValues>): Promise<void> {
    if (await this.repo.find(id)) return this.repo.update(id, values);
    if (!isBuiltinApp(id)) throw new NotFoundError('App not found', { code: ErrorCodes.appNotFound });
    const d = builtinDefaults(id);
    await this.repo.insert(
      id,
      { title: d.title, icon: d.icon, path: d.path, priority: d.priority, args: d.args, active: d.active, ...values },
      this.now(),
    );
  }

  private values(id: string, input: AppUpdateInput): Omit<AppValues, 'active'> {
    if (input.args.length && !appTakesArgs(id)) throw new ValidationError('Only script apps take extra arguments', { code: ErrorCodes.appArgsNotTaken, field: 'args' });
    return {
      title: input.title,
      icon: input.icon,
      path: input.path,
      priority: input.priority,
      args: JSON.stringify(input.args),
    };
  }

  private activeOf(input: AppUpdateInput): 0 | 1 | undefined {
    return input.active === undefined ? undefined : input.active ? 1 : 0;
  }

  private present(row: Omit<AppRow, 'created'>): App {
    return presentApp(row, isBuiltinApp(row.id), this.isFound(row.path));
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  private log(actor: Actor, description: string): Promise<void> {
    return this.events.record({ projectId: null, userId: actor.id, objectType: 'app', objectId: null, description });
  }
}
