import { promises as dns } from 'node:dns';
import net from 'node:net';
import nodemailer from 'nodemailer';
import { canonicalAddress, isBlockedAddress } from '../../../../platform/ip-ranges.js';
import { DeliveryError, type OpenDestination } from '../../notification-payload.js';
import {
  configText,
  configNumber,
  DEFAULT_TIMEOUT_MS,
  maskFor,
  RESPONSE_CHARS,
  type Sender,
  type SenderContext,
} from './sender.js';

interface Smtp {
  host: string;
  /** The server's name, for TLS, when `host` is the address it was checked at. */
  servername?: string;
  port: number;
  secure: boolean;
  username?: string;
  password?: string;
  sender: string;
}

/**
 * Email through the destination's SMTP server, or the instance's own (GANTRY_EMAIL_*) when the
 * destination names none. A user-given server is held to the same address rules as a fetched
 * URL (an SMTP dialogue to an internal host is an SSRF too); the instance's own is trusted.
 */
export const sendEmail: Sender = async (dest, p, ctx) => {
  const to = recipients(dest.config.to);
  if (to.length === 0) throw new DeliveryError('The destination has no recipients', null, false);
  const smtp = await smtpFor(dest, ctx);
  const timeout = ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    ...(smtp.servername ? { tls: { servername: smtp.servername } } : {}),
    auth: smtp.username ? { user: smtp.username, pass: smtp.password ?? '' } : undefined,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  });
  try {
    const info = (await transport.sendMail({
      from: smtp.sender,
      to,
      subject: p.message.title,
      text: p.message.text,
    })) as {
      response?: string;
    };
    return { httpStatus: null, response: maskFor(dest, String(info.response ?? '')).slice(0, RESPONSE_CHARS) };
  } catch (e) {
    const code = (e as { responseCode?: number }).responseCode;
    // An SMTP 5xx is permanent (a refused recipient, bad credentials); 4xx and network errors pass.
    const retryable = !(code !== undefined && code >= 500);
    throw new DeliveryError(maskFor(dest, `Email not sent: ${(e as Error).message}`), null, retryable);
  } finally {
    transport.close();
  }
};

function recipients(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[,;\s]+/) : [];
  return list.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim());
}

async function smtpFor(dest: OpenDestination, ctx: SenderContext): Promise<Smtp> {
  const host = configText(dest, 'host');
  if (!host) {
    const own = ctx.emailDefaults;
    if (!own)
      throw new DeliveryError('No SMTP server: the destination names none and the server has none set', null, false);
    return { ...own };
  }
  const secure = dest.config.secure === true;
  const address = await checkedSmtpAddress(host, ctx.allowedHosts);
  return {
    host: address,
    servername: net.isIP(host) ? undefined : host,
    port: configNumber(dest, 'port') ?? (secure ? 465 : 587),
    secure,
    username: configText(dest, 'username') || undefined,
    password: dest.secrets.password,
    sender: configText(dest, 'sender') || ctx.emailDefaults?.sender || `gantry@${host}`,
  };
}

/**
 * The address to connect to, once every address the host resolves to passed (ip-ranges.ts), unless
 * the admin allowed the host or address; the connection goes to that address (no DNS rebinding).
 */
async function checkedSmtpAddress(host: string, allowedHosts: readonly string[]): Promise<string> {
  const allowed = new Set(allowedHosts.map(canonicalAddress));
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (net.isIP(bare)) addresses = [bare];
  else {
    try {
      addresses = (await dns.lookup(bare, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw new DeliveryError(`SMTP host ${bare} could not be resolved`);
    }
  }
  if (addresses.length === 0) throw new DeliveryError(`SMTP host ${bare} could not be resolved`);
  if (!allowed.has(canonicalAddress(bare))) {
    const refused = addresses.some((a) => isBlockedAddress(a) && !allowed.has(canonicalAddress(a)));
    if (refused)
      throw new DeliveryError(
        `SMTP host ${bare} is a private, local or reserved address; an admin may allow it (GANTRY_FETCH_ALLOWED_HOSTS)`,
        null,
        false,
      );
  }
  return addresses[0]!;
}
