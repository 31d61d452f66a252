import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a signed approval link says: which approval, for which user, until when (ms), and a nonce. */
export interface ApprovalLinkPayload {
  aid: number;
  uid: number;
  exp: number;
  n: string;
}

/** How long a link in a notification stays good when the approval has no earlier deadline. */
export const LINK_LIFETIME_MS = 7 * 86_400_000;

export type LinkCheck = { ok: true; payload: ApprovalLinkPayload } | { ok: false; reason: 'invalid' | 'expired' };

/**
 * Signs and checks the one-time links sent to approvers: `base64url(JSON payload).base64url(HMAC)`.
 * The key is derived from the master key for this use only (as the bus's keys are), so every node
 * of a cluster checks the links any node signed, and the master key itself never signs.
 * One-time use is the database's business (approval_link_use), not the signature's.
 */
export class ApprovalLinkSigner {
  private readonly key: Buffer;

  constructor(masterKey: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'gantry approval link v1', 32));
  }

  sign(p: Omit<ApprovalLinkPayload, 'n'>): string {
    const body = Buffer.from(
      JSON.stringify({ aid: p.aid, uid: p.uid, exp: p.exp, n: randomBytes(9).toString('base64url') }),
    ).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  check(token: string, nowMs: number): LinkCheck {
    const [body, mac, extra] = token.split('.');
    if (!body || !mac || extra !== undefined) return { ok: false, reason: 'invalid' };
    const want = Buffer.from(this.mac(body));
    const got = Buffer.from(mac);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return { ok: false, reason: 'invalid' };
    let p: ApprovalLinkPayload;
    try {
      p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as ApprovalLinkPayload;
    } catch {
      return { ok: false, reason: 'invalid' };
    }
    if (
      !Number.isInteger(p?.aid) ||
      !Number.isInteger(p?.uid) ||
      typeof p?.exp !== 'number' ||
      typeof p?.n !== 'string'
    )
      return { ok: false, reason: 'invalid' };
    if (p.exp <= nowMs) return { ok: false, reason: 'expired' };
    return { ok: true, payload: p };
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(`approval-link.${body}`).digest('base64url');
  }
}
