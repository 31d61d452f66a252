import { Messages, type ApiToken, ErrorCodes } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { randomToken, safeEqual, sha256 } from '../../platform/crypto.js';
import { NotFoundError } from '../../platform/errors.js';
import type { EventBus } from '../../realtime/bus.js';
import type { ApiTokenRow, TokensRepository } from './tokens.repository.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';

/** Public part of a token: its first characters, stored in clear to find the row. */
const ID_LENGTH = 8;
const SECRET_LENGTH = 36;
const DAY_MS = 24 * 3600_000;

/** Expired by hand or by revocation, or past its expiry date. */
function isExpired(row: ApiTokenRow, now: Date): boolean {
  return row.expired === 1 || (row.expires !== null && row.expires <= now.toISOString());
}

/** The API shape; `now` decides whether a token's lifetime has run out. */
export function presentToken(row: ApiTokenRow, now: Date): ApiToken {
  return {
    id: row.token_id,
    token_id: row.token_id,
    user_id: row.user_id,
    created: row.created,
    expired: isExpired(row, now),
    expires: row.expires,
  };
}

/**
 * API tokens: the value is `<token_id><secret>`; only its sha256 is stored, so the value is
 * shown once, at creation. A token may be given a lifetime at creation. Deleting an active token
 * expires it at once; deleting an expired one removes it.
 */
export class TokensService {
  constructor(
    private readonly repo: TokensRepository,
    private readonly clock: Clock,
    private readonly bus: EventBus,
  ) {}

  /** Where token creation and revocation are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  async list(userId: number): Promise<ApiToken[]> {
    const now = this.clock.now();
    return (await this.repo.listForUser(userId)).map((row) => presentToken(row, now));
  }

  /**
   * `expiresInDays`: null, undefined or 0 for a token that never expires. `creator`: the token
   * value the call came with, if any: a token never outlives the token that made it (its expiry
   * caps the new one's, "never" included), so a leaked short-lived token cannot mint a lasting one.
   */
  async create(
    userId: number,
    expiresInDays?: number | null,
    creator?: string,
  ): Promise<{ token: ApiToken; value: string }> {
    const tokenId = randomToken(ID_LENGTH);
    const value = tokenId + randomToken(SECRET_LENGTH);
    const now = this.clock.now();
    let expires = expiresInDays ? new Date(now.getTime() + expiresInDays * DAY_MS).toISOString() : null;
    const cap = creator ? await this.expiryOf(creator) : null;
    if (cap !== null && (expires === null || cap < expires)) expires = cap;
    const row = await this.repo.insert({
      token_id: tokenId,
      token_hash: sha256(value),
      user_id: userId,
      created: now.toISOString(),
      expired: 0,
      expires,
    });
    const token = presentToken(row, now);
    // The public id only: the value is a secret.
    await this.audit.record({ action: 'token_create', objectType: 'token', objectId: tokenId, after: { ...token, user_id: userId } });
    return { token, value };
  }

  /** When a live token stops working on its own (null: never). */
  private async expiryOf(value: string): Promise<string | null> {
    const row = await this.repo.findByTokenId(value.slice(0, ID_LENGTH));
    if (!row || !safeEqual(sha256(value), row.token_hash)) return null;
    return row.expires;
  }

  /** `id` may be the public id or the whole value (as clients of the peer API send it). */
  async delete(userId: number, id: string): Promise<void> {
    const row = await this.repo.findByTokenId(id.slice(0, ID_LENGTH));
    if (!row || row.user_id !== userId || (id.length > ID_LENGTH && !safeEqual(sha256(id), row.token_hash))) {
      throw new NotFoundError(Messages.tokenNotFound, { code: ErrorCodes.tokenNotFound });
    }
    const before = presentToken(row, this.clock.now());
    if (isExpired(row, this.clock.now())) {
      await this.repo.delete(row.id);
      await this.audit.record({ action: 'delete', objectType: 'token', objectId: row.token_id, before });
      return;
    }
    await this.repo.expire(row.id);
    await this.audit.record({ action: 'token_revoke', objectType: 'token', objectId: row.token_id, before, after: { ...before, expired: true } });
    // Sockets opened with this token close.
    this.bus.userChanged(userId);
  }

  /** The user id behind a live bearer token, or null. */
  async resolve(value: string): Promise<number | null> {
    if (value.length !== ID_LENGTH + SECRET_LENGTH) return null;
    const row = await this.repo.findByTokenId(value.slice(0, ID_LENGTH));
    if (!row || isExpired(row, this.clock.now()) || !safeEqual(sha256(value), row.token_hash)) return null;
    return row.user_id;
  }
}
