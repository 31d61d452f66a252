import {
  ACTIVE_STATUSES,
  LOCK_INFO_MAX,
  summarizeState,
  terraformLockInfoSchema,
  type TerraformLockInfo,
  ErrorCodes,
} from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import { AppError, UnauthorizedError, ValidationError } from '../../platform/errors.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import type { StateWriter } from '../terraform-states/terraform-states.service.js';
import { aliasHint } from './terraform-aliases.presenter.js';
import { credentialsMatch, parseBasicAuth, type BasicCredentials } from './basic-auth.js';
import type { LockRow, TerraformBackendRepository } from './terraform-backend.repository.js';
import { newAliasId, isAliasId, taskHoldId, taskLogin } from './alias-ids.js';

/** The one answer to a request that is not let in: unknown alias, wrong login or password, no header. */
export const BACKEND_DENIED = 'Invalid alias or credentials';

/** 423 with the holder's lock information, as terraform expects (plus the usual `error`). */
export class StateLockedError extends AppError {
  constructor(info: Record<string, unknown>) {
    super(423, 'The state is locked', { ...info, code: ErrorCodes.stateLocked });
  }
}

/** Counters of attempts that slow, then refuse, a client (the sign-in throttle fits). */
export interface FailureThrottle {
  /** Runs `check` as one counted attempt; throws 429 without running it when a key is at its limit. */
  attempt(keys: ThrottleKeyLike[], check: () => Promise<boolean>): Promise<boolean>;
}
export interface ThrottleKeyLike {
  key: string;
  slowAfter: number;
  refuseAfter: number;
  forgetOnSuccess?: boolean;
}

/**
 * Failed requests naming an existing alias count against that alias only: tasks all call from
 * 127.0.0.1, so a count per address would let one task's bad requests lock every other alias out.
 * Its password is what is guessed, so it is limited like an account's.
 */
const aliasKey = (alias: string): ThrottleKeyLike => ({
  key: `terraform-backend:alias:${alias}`,
  slowAfter: 3,
  refuseAfter: 10,
  forgetOnSuccess: true,
});

/**
 * Requests naming no alias (unknown, ended, malformed) count per client address, as many as
 * sign-in allows an address, counted apart; right credentials never fall under this count. (That a
 * locked address is refused for unknown aliases only tells nothing: an alias cannot be guessed.)
 */
const addressKey = (ip: string): ThrottleKeyLike => ({
  key: `terraform-backend:${ip}`,
  slowAfter: 30,
  refuseAfter: 100,
});

/** Who is calling the backend, once let in: an alias of a workspace, or a running task's session. */
export interface BackendCaller {
  projectId: number;
  inventoryId: number;
  alias: string;
  /** Set when the caller is a task's session (its versions are the task's; it holds the lock for its run). */
  taskId: number | null;
}

/** What a run on a workspace with the backend on gets: the address path and one-time credentials. */
export interface TaskBackendSession {
  path: string;
  username: string;
  password: string;
}

export interface TerraformBackendDeps {
  repo: TerraformBackendRepository;
  states: {
    latestState(projectId: number, inventoryId: number): Promise<string | null>;
    recordBackend(projectId: number, inventoryId: number, writer: StateWriter, state: string): Promise<void>;
  };
  keys: {
    secretOf(projectId: number, id: number): Promise<{ type: string; login?: string; password?: string } | null>;
  };
  box: SecretBox;
  clock: Clock;
  throttle: FailureThrottle;
}

const isActive = (status: string | null | undefined) =>
  !!status && (ACTIVE_STATUSES as readonly string[]).includes(status);

/**
 * Terraform's and OpenTofu's `http` backend over the workspaces' state versions: Basic auth per
 * alias, GET the newest version, POST a new one (checked against the lock), LOCK and UNLOCK. A
 * task on a workspace with the backend on gets a session of its own that holds the lock from
 * before its plan until its run ends (so a plan waiting for confirmation keeps it).
 */
export class TerraformBackendService {
  constructor(private readonly d: TerraformBackendDeps) {}

  /**
   * Where locks taken and released through an alias are recorded (a task's own hold is part of
   * its run, which is recorded already; new versions are recorded where they are stored).
   */
  audit: AuditRecorder = noAudit;

  /**
   * Lets a request in or throws 401, the same for an unknown alias, a wrong login or password and
   * a missing header. Failures are counted per alias, or per client address for a request naming
   * no alias (slowed, then 429), so nobody's failures lock out another alias's right credentials.
   */
  async authenticate(alias: string, authorization: string | undefined, ip: string): Promise<BackendCaller> {
    const row = isAliasId(alias) ? await this.d.repo.resolve(alias) : undefined;
    const keys = [row ? aliasKey(row.id) : addressKey(ip)];
    let expected: BasicCredentials | null = null;
    if (row?.task_id != null) {
      if (isActive(row.task_status) && row.secret)
        expected = { username: taskLogin(row.task_id), password: this.d.box.open(row.secret) };
    } else if (row?.auth_key_id != null) {
      const key = await this.d.keys.secretOf(row.project_id, row.auth_key_id).catch(() => null);
      if (key?.type === 'login_password' && key.login && key.password)
        expected = { username: key.login, password: key.password };
    }
    const given = parseBasicAuth(authorization);
    const ok = await this.d.throttle.attempt(keys, async () => credentialsMatch(given, expected));
    if (!ok || !row) throw new UnauthorizedError(BACKEND_DENIED, { code: ErrorCodes.backendDenied });
    return { projectId: row.project_id, inventoryId: row.inventory_id, alias: row.id, taskId: row.task_id };
  }

  /** The newest state, as terraform wrote it; null when the workspace has none. */
  read(c: BackendCaller): Promise<string | null> {
    return this.d.states.latestState(c.projectId, c.inventoryId);
  }

  /** Stores a new version; refused (423) while someone else holds the lock (`lockId` is terraform's `?ID=`). */
  async write(c: BackendCaller, body: string, lockId: string | undefined): Promise<void> {
    if (!summarizeState(body))
      throw new ValidationError('The body is not a Terraform state', { code: ErrorCodes.stateBodyInvalid });
    const lock = await this.currentLock(c.inventoryId);
    if (lock && !this.mayWriteUnder(c, lock, lockId)) throw new StateLockedError(lockInfo(lock));
    const writer: StateWriter =
      c.taskId !== null ? { taskId: c.taskId, alias: null } : { taskId: null, alias: c.alias };
    await this.d.states.recordBackend(c.projectId, c.inventoryId, writer, body);
  }

  /** Takes the lock, or answers 423 with the holder's information. A task holding it for its run may lock again. */
  async lock(c: BackendCaller, body: string): Promise<void> {
    const info = parseLockInfo(body);
    if (!info) throw new ValidationError('The body is not lock information', { code: ErrorCodes.lockBodyInvalid });
    for (let attempt = 0; attempt < 3; attempt++) {
      const taken = await this.d.repo.insertLock({
        inventory_id: c.inventoryId,
        project_id: c.projectId,
        lock_id: info.ID,
        info: JSON.stringify(info),
        task_id: c.taskId,
        created: this.d.clock.now().toISOString(),
      });
      if (taken) {
        if (c.taskId === null) {
          await this.audit.record({
            action: 'lock',
            objectType: 'terraform_state',
            objectId: c.inventoryId,
            projectId: c.projectId,
            after: { lock_id: info.ID, operation: info.Operation, who: info.Who, alias: aliasHint(c.alias) },
          });
        }
        return;
      }
      const lock = await this.currentLock(c.inventoryId);
      if (!lock) continue; // a stale lock was cleared, or the holder let go meanwhile
      if (c.taskId !== null && lock.task_id === c.taskId) return;
      throw new StateLockedError(lockInfo(lock));
    }
    throw new AppError(409, 'The lock changed hands too often; try again', { code: ErrorCodes.lockContended });
  }

  /**
   * Releases the lock. With lock information, only the lock with its ID (else 423); without
   * (`terraform force-unlock` sends none), whatever lock there is. A task's own hold stays for
   * its run.
   */
  async unlock(c: BackendCaller, body: string): Promise<void> {
    let id: string | null = null;
    if (body.trim()) {
      const info = parseLockInfo(body);
      if (!info) throw new ValidationError('The body is not lock information', { code: ErrorCodes.lockBodyInvalid });
      id = info.ID;
    }
    const lock = await this.currentLock(c.inventoryId);
    if (!lock) return;
    if (c.taskId !== null && lock.task_id === c.taskId) {
      if (lock.lock_id !== taskHoldId(c.taskId)) await this.d.repo.deleteLock(c.inventoryId, lock.lock_id);
      return;
    }
    if (id !== null && id !== lock.lock_id) throw new StateLockedError(lockInfo(lock));
    if (!(await this.d.repo.deleteLock(c.inventoryId, lock.lock_id))) return;
    // `force`: terraform force-unlock (no lock information), which may release a task's hold too.
    await this.audit.record({
      action: 'unlock',
      objectType: 'terraform_state',
      objectId: c.inventoryId,
      projectId: c.projectId,
      before: {
        lock_id: lock.lock_id,
        who: lockInfo(lock).Who ?? null,
        ...(lock.task_id === null ? {} : { task_id: lock.task_id }),
      },
      after: { force: id === null, alias: aliasHint(c.alias) },
    });
  }

  /**
   * A session for a terraform/tofu run on a workspace whose backend is on: a one-time alias and
   * password for this task, and the workspace's lock held until the task ends. Null when the
   * backend is off or the task is not running. The same session again for the same task (a
   * runner's job is loaded more than once). Throws, saying who holds it, when the state is locked.
   */
  async openSession(task: { id: number; project_id: number }, inventoryId: number): Promise<TaskBackendSession | null> {
    if (!(await this.d.repo.backendEnabled(task.project_id, inventoryId))) return null;
    if (!isActive(await this.d.repo.taskStatus(task.project_id, task.id))) return null;
    const existing = await this.d.repo.taskAlias(task.id);
    if (existing?.secret) return session(existing.id, task.id, this.d.box.open(existing.secret));
    await this.hold(task, inventoryId);
    const id = newAliasId();
    const password = newAliasId();
    const now = this.d.clock.now().toISOString();
    const row = {
      id,
      project_id: task.project_id,
      inventory_id: inventoryId,
      auth_key_id: null,
      task_id: task.id,
      secret: this.d.box.seal(password),
      created: now,
    };
    if (await this.d.repo.insertAlias(row)) return session(id, task.id, password);
    const raced = await this.d.repo.taskAlias(task.id);
    if (!raced?.secret) throw new Error('Could not open a state backend session');
    return session(raced.id, task.id, this.d.box.open(raced.secret));
  }

  /** Ends a task's session: its address stops answering and its lock is released. */
  async closeSession(taskId: number): Promise<void> {
    await this.d.repo.deleteTaskSession(taskId);
  }

  /** Takes the workspace's lock for a task's whole run. */
  private async hold(task: { id: number; project_id: number }, inventoryId: number): Promise<void> {
    const created = this.d.clock.now().toISOString();
    const info: TerraformLockInfo = {
      ID: taskHoldId(task.id),
      Operation: 'OperationTypeApply',
      Info: `Held by Gantry task #${task.id} until it ends`,
      Who: `gantry task #${task.id}`,
      Version: '',
      Created: created,
      Path: '',
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      const row = {
        inventory_id: inventoryId,
        project_id: task.project_id,
        lock_id: info.ID,
        info: JSON.stringify(info),
        task_id: task.id,
        created,
      };
      if (await this.d.repo.insertLock(row)) return;
      const lock = await this.currentLock(inventoryId);
      if (!lock) continue;
      if (lock.task_id === task.id) return;
      const held = lockInfo(lock);
      throw new Error(
        `The workspace's state is locked by ${String(held.Who || 'someone')} since ${String(held.Created || lock.created)} (lock ID ${lock.lock_id})`,
      );
    }
    throw new Error("Could not take the workspace's state lock");
  }

  /**
   * The workspace's lock; a lock whose task has ended (or is gone) is released here, so a run
   * that ended any way at all (a crash, a runner that went silent) never keeps it.
   */
  private async currentLock(inventoryId: number): Promise<LockRow | null> {
    const lock = await this.d.repo.lock(inventoryId);
    if (!lock) return null;
    if (lock.task_id !== null && !isActive(lock.task_status)) {
      await this.d.repo.deleteLock(inventoryId, lock.lock_id);
      return null;
    }
    return lock;
  }

  private mayWriteUnder(c: BackendCaller, lock: LockRow, lockId: string | undefined): boolean {
    if (c.taskId !== null && lock.task_id === c.taskId) return true;
    return lockId !== undefined && lockId === lock.lock_id;
  }
}

function session(aliasId: string, taskId: number, password: string): TaskBackendSession {
  return { path: `/api/terraform/${aliasId}`, username: taskLogin(taskId), password };
}

function parseLockInfo(body: string): TerraformLockInfo | null {
  if (body.length > LOCK_INFO_MAX) return null;
  try {
    const r = terraformLockInfoSchema.safeParse(JSON.parse(body));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

function lockInfo(lock: LockRow): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(lock.info);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // Stored by us from checked JSON; fall through to the bare ID.
  }
  return { ID: lock.lock_id };
}
