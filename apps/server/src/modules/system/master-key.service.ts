import type { Db } from '../../db/db.js';
import type { Clock } from '../../platform/clock.js';
import { systemClock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import { MasterKeyRepository, type SealedValue } from './master-key.repository.js';

/** The known text sealed as the check value; only whether it opens to this matters. */
const CHECK_TEXT = 'gantry-master-key-check-v1';

/** The master key does not fit this database: the operator must act, nothing was written. */
export class MasterKeyError extends Error {}

/**
 * Guards the secrets at rest against a changed master key. A check value sealed at the first
 * start is opened at every start; `rekey` moves every sealed value to a new key at once.
 */
export class MasterKeyService {
  constructor(
    private readonly repo: MasterKeyRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Refuses (MasterKeyError) a key that does not open the check value. Without one yet, the key
   * must open the oldest sealed value of each column (a database from before the check), then
   * the check value is sealed with it. `source` names where the key came from, for the message.
   * `staged` is a key `gantry rekey` left in `secret.key.new`: when it opens the check value and
   * the key does not, the rekey stopped after its commit and before replacing the key file, and
   * the message tells the operator to move it into place. Nothing is adopted here: the old key
   * may still be needed for backups of the database from before the rekey.
   */
  async verify(box: SecretBox, source: string, staged?: { box: SecretBox; source: string }): Promise<void> {
    const refused = (check: string | undefined) =>
      staged && check !== undefined && opens(staged.box, check, CHECK_TEXT)
        ? new MasterKeyError(
            `The master key in ${source} does not open this database's secrets, but ${staged.source} does: a gantry rekey re-sealed the database and stopped before it replaced the key file. ` +
              `Move ${staged.source} over ${source} (keep a copy of the old key if a backup of the database from before the rekey may be restored), then start again. Gantry will not start until then.`,
          )
        : new MasterKeyError(
            `The master key does not open this database's secrets (${source} changed?). Gantry will not start, so nothing is sealed with a wrong key.`,
          );
    let check = await this.repo.check();
    if (check === undefined) {
      for (const value of await this.repo.oldestSealed()) if (!opens(box, value.sealed)) throw refused(check);
      await this.repo.insertCheck(box.seal(CHECK_TEXT), this.clock.now().toISOString());
      // Another node starting at the same time may have stored its own: what is stored decides.
      check = await this.repo.check();
    }
    if (check === undefined || !opens(box, check, CHECK_TEXT)) throw refused(check);
  }

  /**
   * Whether the key opens this database's check value (false while there is none): `gantry
   * rekey` asks before it replaces a `secret.key.new` left by an earlier run.
   */
  async opensCheck(box: SecretBox): Promise<boolean> {
    const check = await this.repo.check();
    return check !== undefined && opens(box, check, CHECK_TEXT);
  }

  /**
   * Opens every sealed value with `from` and seals it with `to`, the check value too, in one
   * transaction: when any value does not open, nothing changes. Answers how many values were
   * re-sealed (the check value not counted). Run with the server stopped.
   */
  async rekey(from: SecretBox, to: SecretBox, source: string): Promise<number> {
    const notOpening = (where: string) =>
      new MasterKeyError(`The current master key (${source}) does not open ${where}; nothing was changed.`);
    return this.repo.resealAll(
      (v: SealedValue) => {
        let plain: string;
        try {
          plain = from.open(v.sealed);
        } catch {
          throw notOpening(`a value in ${v.where}`);
        }
        return to.seal(plain);
      },
      (current) => {
        if (current !== undefined && !opens(from, current, CHECK_TEXT)) throw notOpening("this database's check value");
        return to.seal(CHECK_TEXT);
      },
      this.clock.now().toISOString(),
    );
  }
}

/** The usual wiring, for start-up and the CLI. */
export function masterKeyService(db: Db, clock: Clock = systemClock): MasterKeyService {
  return new MasterKeyService(new MasterKeyRepository(db.db), clock);
}

function opens(box: SecretBox, sealed: string, expected?: string): boolean {
  try {
    const plain = box.open(sealed);
    return expected === undefined || plain === expected;
  } catch {
    return false;
  }
}
