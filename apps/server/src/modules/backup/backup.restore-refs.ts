import { ZodError } from 'zod';
import { AppError, ValidationError } from '../../platform/errors.js';

/** A reference that resolved: the new row's id, the backup object's name and (for keys, templates) type. */
type Found = { id: number; name: string; type?: string };
/** Why a reference does not fit ("become key "x" is of type ssh, ..."), or null when it does. */
export type Fit = (found: Found) => string | null;

/**
 * One kind of backup object: each one's name (for the notes) and the id of the row made from it,
 * once it is restored. A backup id that two objects share is refused earlier (checkUniqueIds).
 */
export class Restored {
  private readonly items = new Map<number, { name: string; type?: string }>();
  private readonly ids = new Map<number, number>();

  constructor(items: ReadonlyArray<{ id: number; name: string; type?: string }>) {
    for (const { id, name, type } of items) this.items.set(id, { name, type });
  }

  set(backupId: number, id: number): void {
    this.ids.set(backupId, id);
  }

  /** The restored row `backupId` became, or why there is none, worded with the reference's `role`. */
  lookup(role: string, backupId: number): Found | { problem: string } {
    const item = this.items.get(backupId);
    if (item === undefined) return { problem: `${role} #${backupId} is not in the backup` };
    const id = this.ids.get(backupId);
    return id === undefined ? { problem: `${role} "${item.name}" was left out` } : { id, ...item };
  }
}

/**
 * What a restore leaves out instead of failing, one line per thing: `Inventory "web": become key
 * "x" is of type ssh, not a login with password; left out`. A reference that does not fit is
 * left out and its object restored without it; an object that cannot exist without it, or that
 * Gantry's rules refuse, is not restored (and a reference to it then "was left out"). What is
 * said about an object's references waits until the object is restored: of an object that is
 * not, only the reason it is not is listed.
 */
export class RestoreNotes {
  readonly lines: string[] = [];
  private pending: string[] = [];

  /** A line about the object being restored now, listed once it is restored (see `attempt`). */
  later(what: string, message: string): void {
    this.pending.push(`${what}: ${message}`);
  }

  /** The new id `backupId` became, or what is wrong with the reference. */
  resolve(role: string, kind: Restored, backupId: number, fit?: Fit): number | string {
    const found = kind.lookup(role, backupId);
    if ('problem' in found) return found.problem;
    return fit?.(found) ?? found.id;
  }

  /** An optional reference: the new id, or null (noted) when it names nothing restored or does not fit. */
  optional(what: string, role: string, kind: Restored, backupId: number | null, fit?: Fit): number | null {
    if (backupId === null) return null;
    const found = this.resolve(role, kind, backupId, fit);
    if (typeof found === 'number') return found;
    this.later(what, `${found}; left out`);
    return null;
  }

  /** A reference the object cannot do without: the new id, or null (noted: the object is not restored). */
  required(what: string, role: string, kind: Restored, backupId: number | null, fit?: Fit): number | null {
    const found = backupId === null ? `no ${role}` : this.resolve(role, kind, backupId, fit);
    if (typeof found === 'number') return found;
    this.notRestored(what, found);
    return null;
  }

  /**
   * Runs `create` and answers what it does; when Gantry's rules refuse the object (a schema or
   * service check: 400, or a 404 for something it names), notes it as not restored and answers
   * undefined. Any other error (the database's) still fails the whole restore. The checks run
   * before a row is written, so a refused object leaves nothing behind in the transaction.
   */
  async attempt<T>(what: string, create: () => Promise<T>): Promise<T | undefined> {
    let made: T;
    try {
      made = await create();
    } catch (err) {
      const message = refusal(err);
      if (message === null) throw err;
      this.notRestored(what, message);
      return undefined;
    }
    this.lines.push(...this.pending);
    this.pending = [];
    return made;
  }

  private notRestored(what: string, reason: string): void {
    this.pending = [];
    this.lines.push(`${what}: ${reason}; not restored`);
  }
}

function refusal(err: unknown): string | null {
  if (err instanceof ZodError) {
    const issue = err.issues[0];
    const field = issue?.path.map(String).join('.') ?? '';
    return `${field ? `${field}: ` : ''}${issue?.message ?? 'invalid'}`;
  }
  if (err instanceof ValidationError) {
    const field = err.details?.field;
    return `${typeof field === 'string' ? `${field}: ` : ''}${err.message}`;
  }
  if (err instanceof AppError && err.statusCode === 404) return err.message;
  return null;
}

/** A key that must be a login with password: a become key, a vault password, a webhook secret. */
export function loginKey(role: string): Fit {
  return ({ name, type }) =>
    type === 'login_password' ? null : `${role} "${name}" is of type ${type ?? 'unknown'}, not a login with password`;
}
