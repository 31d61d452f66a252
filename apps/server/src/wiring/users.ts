import type { Config } from '../config/config.js';
import type { Db } from '../db/db.js';
import type { AuditService } from '../modules/audit/audit.service.js';
import { AuthFailuresRepository } from '../modules/auth/auth-failures.repository.js';
import { AuthService } from '../modules/auth/auth.service.js';
import { LoginThrottle } from '../modules/auth/login-throttle.js';
import { openidClient } from '../modules/auth/oidc-client.js';
import { OidcIdentitiesRepository } from '../modules/auth/oidc-identities.repository.js';
import { OidcService } from '../modules/auth/oidc.service.js';
import { SessionsRepository } from '../modules/auth/sessions.repository.js';
import { TotpRepository } from '../modules/auth/totp.repository.js';
import { TotpService } from '../modules/auth/totp.service.js';
import type { EventsService } from '../modules/events/events.service.js';
import { MappingsRepository } from '../modules/identity/mappings.repository.js';
import { MappingsService, mappingSources } from '../modules/identity/mappings.service.js';
import { ldaptsClient } from '../modules/ldap/ldap-client.js';
import { LdapDirectory } from '../modules/ldap/ldap-directory.js';
import { LdapUsersRepository } from '../modules/ldap/ldap-users.repository.js';
import { LdapService } from '../modules/ldap/ldap.service.js';
import { PasskeysRepository } from '../modules/passkeys/passkeys.repository.js';
import { PasskeysService } from '../modules/passkeys/passkeys.service.js';
import { InstanceSettingsRepository } from '../modules/security/instance-settings.repository.js';
import { TwoFactorPolicyService } from '../modules/security/two-factor-policy.service.js';
import { TeamRepository } from '../modules/team/team.repository.js';
import { TeamService } from '../modules/team/team.service.js';
import { TokensRepository } from '../modules/tokens/tokens.repository.js';
import { TokensService } from '../modules/tokens/tokens.service.js';
import { UsersRepository, type UserRow } from '../modules/users/users.repository.js';
import type { UsersService } from '../modules/users/users.service.js';
import type { Clock } from '../platform/clock.js';
import type { SecretBox } from '../platform/crypto.js';
import type { EventBus } from '../realtime/bus.js';

export interface UserServicesDeps {
  config: Config;
  db: Db;
  box: SecretBox;
  clock: Clock;
  /** Test hook: replaces the sign-in slow-down wait. */
  sleep: ((ms: number) => Promise<void>) | undefined;
  bus: EventBus;
  events: EventsService;
  users: UsersService;
  audit: AuditService;
}

export interface UserServices {
  /** The sign-in slow-down, shared by every way of signing in (the Terraform backend's too). */
  throttle: LoginThrottle;
  totp: TotpService;
  passkeys: PasskeysService;
  auth: AuthService;
  twoFactorPolicy: TwoFactorPolicyService;
  identityMappings: MappingsService;
  oidc: OidcService;
  ldap: LdapService | undefined;
  tokens: TokensService;
  team: TeamService;
}

/**
 * Everything around the users service: sign-in (password, second factors, OIDC, LDAP), the
 * two-factor policy, group mappings, API tokens and the team. Hands `audit` to users, auth, the
 * throttle, tokens and the team; the others get it later, in services.ts (the composition root).
 */
export function createUserServices({
  config,
  db,
  box,
  clock,
  sleep,
  bus,
  events,
  users,
  audit,
}: UserServicesDeps): UserServices {
  const throttle = new LoginThrottle(new AuthFailuresRepository(db.db), events, clock, sleep);
  const totp = new TotpService(new TotpRepository(db.db), users, box, events, clock, config.totp, throttle);
  const passkeysRepo = new PasskeysRepository(db.db);
  // A passkey is a second factor too: a user with one answers the second step with it or a code.
  const secondFactor = {
    required: async (user: UserRow) => totp.required(user) || (await passkeysRepo.hasAny(user.id)),
    checkCode: (userId: number, passcode: string) => totp.checkCode(userId, passcode),
    useRecoveryCode: (user: UserRow, code: string) => totp.useRecoveryCode(user, code),
    methods: async (user: UserRow) => ({
      totp: totp.required(user),
      passkey: await passkeysRepo.hasAny(user.id),
      // The recovery code stands in for the app's code only, and only where the server allows it.
      recovery: totp.required(user) && config.totp.allowRecovery,
    }),
  };
  const auth = new AuthService(users, new SessionsRepository(db.db), throttle, secondFactor, clock, bus);
  const passkeys = new PasskeysService(
    passkeysRepo,
    users,
    auth,
    events,
    clock,
    throttle,
    config.webHost,
    (userId, code) => totp.checkCode(userId, code),
  );
  const twoFactorPolicy = new TwoFactorPolicyService(new InstanceSettingsRepository(db.db), events, clock, {
    totpEnabled: config.totp.enabled,
    fixed: config.totp.required,
  });
  twoFactorPolicy.hasPasskey = (userId) => passkeysRepo.hasAny(userId);
  const identityMappings = new MappingsService(
    new MappingsRepository(db.db),
    users,
    events,
    clock,
    bus,
    mappingSources(config.oidcProviders),
  );
  const oidc = new OidcService(
    config.oidcProviders,
    openidClient(),
    users,
    new OidcIdentitiesRepository(db.db),
    auth,
    events,
    box,
    clock,
    identityMappings,
  );
  // LDAP: logins that are not a local user's are checked against the directory; its groups go to the mappings.
  const usersRepo = new UsersRepository(db.db);
  const ldap = config.ldap
    ? new LdapService({
        directory: new LdapDirectory(config.ldap, ldaptsClient(config.ldap)),
        repo: new LdapUsersRepository(db.db),
        users,
        groups: identityMappings,
        events,
        clock,
        // As when a password changes: sessions deleted, tokens expired, sockets closed.
        revoke: async (id) => {
          await usersRepo.update(id, {}, {});
          bus.userChanged(id);
        },
        log: (line) => void (config.logLevel !== 'silent' && process.stderr.write(`${line}\n`)),
        ownMfa: config.ldapOwnMfa,
      })
    : undefined;
  auth.directory = ldap;
  // The audit trail hears of users, sign-ins and lockouts, tokens, teams and projects from their services
  // (projects: in services.ts, right after this).
  users.audit = audit;
  auth.audit = audit;
  throttle.audit = audit;
  const tokens = new TokensService(new TokensRepository(db.db), clock, bus);
  const team = new TeamService(new TeamRepository(db.db), users, events, clock, bus);
  tokens.audit = audit;
  team.audit = audit;
  return { throttle, totp, passkeys, auth, twoFactorPolicy, identityMappings, oidc, ldap, tokens, team };
}
