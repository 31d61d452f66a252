import {
  ErrorCodes,
  Messages,
  twoFactorPolicySchema,
  type TwoFactorPolicy,
  type TwoFactorSettings,
} from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { ConflictError, ValidationError } from '../../platform/errors.js';
import type { EventsService } from '../events/events.service.js';
import type { UserRow } from '../users/users.repository.js';
import type { InstanceSettingsRepository } from './instance-settings.repository.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';

const KEY = 'two_factor_required';
/**
 * The stored policy is read again at most this often: a change made on another node sharing the
 * database applies there within this time; on the node that saved it, at once.
 */
export const POLICY_CACHE_MS = 5_000;

export interface TwoFactorPolicySettings {
  /** GANTRY_TOTP_ENABLED: without it nobody can set up two-factor sign-in, so no policy is enforced. */
  totpEnabled: boolean;
  /** GANTRY_TOTP_REQUIRED: when set, it wins over the stored setting, which cannot be changed. */
  fixed: TwoFactorPolicy | undefined;
}

/** What decides whether a caller must set up two-factor sign-in first. */
export interface EnrolmentSubject {
  user: UserRow;
  /** The session was opened by a provider marked as doing its own multi-factor check. */
  mfaByProvider: boolean;
}

/**
 * The admin's two-factor requirement (`off`, `admins`, `all`): stored in the database and changed
 * by admins, or fixed by GANTRY_TOTP_REQUIRED. A user it covers who has no confirmed method may
 * only set one up until a code of it is confirmed (see platform/auth.ts).
 */
export class TwoFactorPolicyService {
  private cached: { policy: TwoFactorPolicy; at: number } | null = null;
  /** Whether the user has a passkey, which meets the requirement like a TOTP method (set by services.ts). */
  hasPasskey: ((userId: number) => Promise<boolean>) | undefined;

  constructor(
    private readonly repo: InstanceSettingsRepository,
    private readonly events: EventsService,
    private readonly clock: Clock,
    private readonly settings: TwoFactorPolicySettings,
  ) {}

  /** Where changes are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  async get(): Promise<TwoFactorSettings> {
    return {
      required: await this.policy(),
      fixed: this.settings.fixed !== undefined,
      totp_enabled: this.settings.totpEnabled,
    };
  }

  /**
   * Refused while GANTRY_TOTP_REQUIRED fixes the policy, and for a policy other than `off` while
   * two-factor sign-in is off on the server (nobody could comply).
   */
  async set(actorId: number, required: TwoFactorPolicy): Promise<TwoFactorSettings> {
    if (this.settings.fixed !== undefined) {
      throw new ConflictError('The two-factor policy is set by the server configuration (GANTRY_TOTP_REQUIRED)', {
        code: ErrorCodes.twoFactorPolicyFixed,
      });
    }
    if (required !== 'off' && !this.settings.totpEnabled) {
      throw new ValidationError(Messages.totpDisabled, { code: ErrorCodes.totpDisabled, field: 'required' });
    }
    const before = await this.policy();
    await this.repo.set(KEY, JSON.stringify(required), this.clock.now().toISOString());
    this.cached = { policy: required, at: this.clock.now().getTime() };
    if (before !== required) {
      await this.audit.record({ action: 'update', objectType: 'setting', objectId: 'two_factor', before: { required: before }, after: { required } });
      await this.events.record({
        projectId: null,
        userId: actorId,
        objectType: 'user',
        objectId: null,
        description: `Two-factor sign-in requirement changed from ${before} to ${required}`,
      });
    }
    return this.get();
  }

  /**
   * Whether this caller must set up two-factor sign-in before anything else: the policy covers
   * them, they have no confirmed method (TOTP or passkey), and their session's provider does not check a second
   * factor itself. Never while two-factor sign-in is off on the server.
   */
  async enrolmentRequired({ user, mfaByProvider }: EnrolmentSubject): Promise<boolean> {
    if (!this.settings.totpEnabled || user.totp_id !== null || mfaByProvider) return false;
    const policy = await this.policy();
    if (!(policy === 'all' || (policy === 'admins' && user.admin === 1))) return false;
    return !(await this.hasPasskey?.(user.id));
  }

  private async policy(): Promise<TwoFactorPolicy> {
    if (this.settings.fixed !== undefined) return this.settings.fixed;
    const now = this.clock.now().getTime();
    if (this.cached && now - this.cached.at < POLICY_CACHE_MS && now >= this.cached.at) return this.cached.policy;
    const stored = await this.repo.get(KEY);
    const parsed = twoFactorPolicySchema.safeParse(stored === undefined ? 'off' : safeJson(stored));
    const policy = parsed.success ? parsed.data : 'off';
    this.cached = { policy, at: now };
    return policy;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
