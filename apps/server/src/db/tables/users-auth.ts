import type { ColumnType, Generated } from 'kysely';

export interface UserTable {
  id: Generated<number>;
  username: string;
  name: string;
  email: string;
  password: string | null;
  admin: number;
  external: number;
  alert: number;
  created: string;
}

export interface SessionTable {
  /** sha256 of the cookie value: a database leak does not leak live sessions. */
  id: string;
  user_id: number;
  created: string;
  last_active: string;
  ip: string;
  user_agent: string;
  /** 0 while the session waits for the second sign-in step (TOTP), else 1. */
  verified: number;
  /** When its sign-in was completed (ISO): the password, or the code after it; null while waiting for the code. */
  signed_in: string | null;
  /** 1: opened by a provider that does its own multi-factor check; the two-factor policy does not apply. */
  mfa_by_provider: number;
}

export interface UserTotpTable {
  id: Generated<number>;
  user_id: number;
  /** Sealed base32 TOTP secret (SecretBox). */
  secret: string;
  /** sha256 of the recovery code. */
  recovery_hash: string;
  /** The last 30-second step whose code was accepted (replay guard). */
  last_step: number;
  created: string;
  /** 1 once a code confirmed the method (sign-in asks for codes then), 0 while it waits for one. */
  confirmed: Generated<number>;
}

/** A user's passkey (WebAuthn credential), migration 024. */
export interface UserPasskeyTable {
  id: Generated<number>;
  user_id: number;
  /** base64url credential id, unique over all users. */
  credential_id: string;
  /** base64url COSE public key. */
  public_key: string;
  /** The authenticator's signature counter (bigint: PostgreSQL answers it as text). */
  counter: ColumnType<number | string, number, number>;
  /** JSON list of transports the browser reported. */
  transports: string;
  name: string;
  created: string;
  last_used: string | null;
}

/** A WebAuthn challenge waiting for its answer, spent once (migration 024). */
export interface PasskeyChallengeTable {
  /** sha256 of the challenge (base64url). */
  id: string;
  purpose: string;
  user_id: number | null;
  /** sha256 of what the challenge is bound to (a session id or a browser cookie), or null. */
  binding: string | null;
  expires: string;
}

export interface ApiTokenTable {
  id: Generated<number>;
  token_id: string;
  token_hash: string;
  user_id: number;
  created: string;
  expired: number;
  /** When the token stops working on its own (ISO); null: never. */
  expires: string | null;
}

export interface AuthFailureTable {
  key: string;
  count: number;
  first_at: string;
  last_at: string;
}
