import { Messages, type ApiToken } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { randomToken, safeEqual, sha256 } from '../../platform/crypto.js';
import { NotFoundError } from '../../platform/errors.js';
import type { ApiTokenRow, TokensRepository } from './tokens.repository.js';

/** Public part of a token: its first characters, stored in clear to find the row. */
const ID_LENGTH = 8;
const SECRET_LENGTH = 36;

export function presentToken(row: ApiTokenRow): ApiToken {
  return { id: row.token_id, token_id: row.token_id, created: row.created, expired: row.expired === 1 };
}

/**
 * API tokens: the value is `<token_id><secret>`; only its sha256 is stored, so the value is
 * shown once, at creation. Deleting an active token expires it at once; deleting an expired
 * one removes it.
 */
export class TokensService {
  constructor(
    private readonly repo: TokensRepository,
    private readonly clock: Clock,
  ) {}

  list(userId: number): Promise<ApiTokenRow[]> {
    return this.repo.listForUser(userId);
  }

  async create(userId: number): Promise<{ row: ApiTokenRow; value: string }> {
    const tokenId = randomToken(ID_LENGTH);
    const value = tokenId + randomToken(SECRET_LENGTH);
    const row = await this.repo.insert({
      token_id: tokenId,
      token_hash: sha256(value),
      user_id: userId,
      created: this.clock.now().toISOString(),
      expired: 0,
    });
    return { row, value };
  }

  /** `id` may be the public id or the whole value (as clients of the peer API send it). */
  async delete(userId: number, id: string): Promise<void> {
    const row = await this.repo.findByTokenId(id.slice(0, ID_LENGTH));
    if (!row || row.user_id !== userId || (id.length > ID_LENGTH && !safeEqual(sha256(id), row.token_hash))) {
      throw new NotFoundError(Messages.tokenNotFound);
    }
    if (row.expired === 1) await this.repo.delete(row.id);
    else await this.repo.expire(row.id);
  }

  /** The user id behind a live bearer token, or null. */
  async resolve(value: string): Promise<number | null> {
    if (value.length !== ID_LENGTH + SECRET_LENGTH) return null;
    const row = await this.repo.findByTokenId(value.slice(0, ID_LENGTH));
    if (!row || row.expired === 1 || !safeEqual(sha256(value), row.token_hash)) return null;
    return row.user_id;
  }
}
