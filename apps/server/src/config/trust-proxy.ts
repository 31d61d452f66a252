import { isIP } from 'node:net';
import { z } from 'zod';

/** Names proxy-addr (Fastify's `trustProxy`) knows for whole address ranges. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, an address/prefix (CIDR), or one of the named ranges. */
function isProxyEntry(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * GANTRY_TRUST_PROXY: which hops may tell the client's address in X-Forwarded-For. Unset (or
 * `false`): none, the header is ignored. A comma-separated list of proxy addresses or CIDRs:
 * those. `true`: any hop — only safe when Gantry is reachable through the proxy alone, since
 * otherwise any client can claim any address (and dodge the sign-in throttle).
 */
export const trustProxyEnv = z
  .string()
  .optional()
  .transform((v, ctx): boolean | string[] => {
    const text = v?.trim() ?? '';
    if (text === '' || /^(false|no|off)$/i.test(text)) return false;
    if (/^(true|yes|on)$/i.test(text)) return true;
    const entries = text
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e !== '');
    const bad = entries.filter((e) => !isProxyEntry(e));
    if (bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `expected true, false or a comma-separated list of proxy addresses or CIDRs; not an address: ${bad.join(', ')}`,
      });
      return z.NEVER;
    }
    return entries;
  });
