import { Messages } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { dummyPasswordHash, randomToken, sha256, verifyPassword } from '../../platform/crypto.js';
import { UnauthorizedError } from '../../platform/errors.js';
import type { UserRow } from '../users/users.repository.js';
import type { UsersService } from '../users/users.service.js';
import type { LoginThrottle } from './login-throttle.js';
import type { SessionsRepository } from './sessions.repository.js';

/** A session idle this long is over. */
export const SESSION_IDLE_MS = 7 * 24 * 3600_000;
/** last_active is written at most this often, so every request is not a write. */
const TOUCH_EVERY_MS = 60_000;

export class AuthService {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsRepository,
    private readonly throttle: LoginThrottle,
    private readonly clock: Clock,
  ) {}

  /**
   * Checks the credentials and opens a session; answers the same 401 for an unknown user and
   * a wrong password, and spends the same hashing time on both.
   */
  async login(auth: string, password: string, client: { ip: string; userAgent: string }): Promise<string> {
    const keys = [`account:${auth.trim().toLowerCase()}`, `ip:${client.ip}`];
    await this.throttle.before(keys);
    const user = await this.users.findByLogin(auth.trim());
    const hash = user?.password ?? (await dummyPasswordHash());
    const ok = (await verifyPassword(password, hash)) && !!user?.password && user.external === 0;
    if (!ok || !user) {
      await this.throttle.failed(keys);
      throw new UnauthorizedError(Messages.incorrectLogin);
    }
    await this.throttle.succeeded(keys[0]!);
    return this.openSession(user.id, client);
  }

  async openSession(userId: number, client: { ip: string; userAgent: string }): Promise<string> {
    const value = randomToken(48);
    const now = this.clock.now().toISOString();
    await this.sessions.insert({
      id: sha256(value),
      user_id: userId,
      created: now,
      last_active: now,
      ip: client.ip,
      user_agent: client.userAgent.slice(0, 300),
    });
    return value;
  }

  /** The user behind a session cookie, or null when it is unknown or idle too long. */
  async resolveSession(value: string): Promise<UserRow | null> {
    const id = sha256(value);
    const session = await this.sessions.find(id);
    if (!session) return null;
    const now = this.clock.now();
    const idle = now.getTime() - Date.parse(session.last_active);
    if (idle > SESSION_IDLE_MS) {
      await this.sessions.delete(id);
      return null;
    }
    if (idle > TOUCH_EVERY_MS) await this.sessions.touch(id, now.toISOString());
    return (await this.users.findById(session.user_id)) ?? null;
  }

  async logout(value: string): Promise<void> {
    await this.sessions.delete(sha256(value));
  }
}
