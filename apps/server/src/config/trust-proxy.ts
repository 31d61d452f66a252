import { BlockList, isIP } from 'node:net';
import os from 'node:os';
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

/** The ranges proxy-addr's names stand for. */
const NAMED_SUBNETS: Record<string, Array<[string, number]>> = {
  loopback: [
    ['127.0.0.0', 8],
    ['::1', 128],
  ],
  linklocal: [
    ['169.254.0.0', 16],
    ['fe80::', 10],
  ],
  uniquelocal: [
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['fc00::', 7],
  ],
};

/** The addresses one GANTRY_TRUST_PROXY entry trusts, and one address inside it. */
function entryBlock(entry: string): { block: BlockList; inside: string[] } {
  const block = new BlockList();
  const add = (address: string, prefix: number) =>
    block.addSubnet(address, prefix, isIP(address) === 4 ? 'ipv4' : 'ipv6');
  const named = NAMED_SUBNETS[entry];
  if (named) {
    for (const [address, prefix] of named) add(address, prefix);
    return { block, inside: named.map(([address]) => address) };
  }
  const [address = '', prefix] = entry.split('/');
  add(address, prefix === undefined ? (isIP(address) === 4 ? 32 : 128) : Number(prefix));
  return { block, inside: [address] };
}

const LOOPBACK = entryBlock('loopback');

/** Whether a trusted range and the loopback ranges meet (one CIDR holds the other, or an address of it). */
function coversLoopback(entry: string): boolean {
  const { block, inside } = entryBlock(entry);
  return (
    ['127.0.0.1', '::1'].some((a) => block.check(a, isIP(a) === 4 ? 'ipv4' : 'ipv6')) ||
    inside.some((a) => LOOPBACK.block.check(a, isIP(a) === 4 ? 'ipv4' : 'ipv6'))
  );
}

/** This host's own addresses (loopback aside): what tasks on this host can connect from. */
export function hostAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((i): i is os.NetworkInterfaceInfo => !!i && !i.internal)
    .map((i) => i.address);
}

/**
 * Start-up warnings about GANTRY_TRUST_PROXY: trust that a task on this host could use to claim
 * any client address in X-Forwarded-For (and so dodge the sign-in and backend throttles, or
 * blame someone else in the logs). `true` trusts whoever connects; loopback is safe only while
 * tasks run in a network namespace of their own (`tasksIsolated`), without the host's loopback;
 * a range holding one of the host's own addresses (`hostAddresses`) is never safe, since tasks
 * connect from those even when isolated (their way out is the host's own). The advice: list the
 * proxy's exact address, an address tasks cannot connect from. Each warning is one log line.
 */
export function trustProxyWarnings(
  trust: boolean | string[],
  opts: { tasksIsolated: boolean; hostAddresses: string[] },
): string[] {
  if (trust === false) return [];
  if (trust === true)
    return [
      "GANTRY_TRUST_PROXY is true: X-Forwarded-For is believed from whoever connects, so a client that reaches Gantry without the proxy (a task on this host included) can claim any address; set it to the proxy's exact address instead",
    ];
  const warnings: string[] = [];
  const loopback = trust.filter(coversLoopback);
  if (loopback.length && !opts.tasksIsolated)
    warnings.push(
      `GANTRY_TRUST_PROXY trusts loopback (${loopback.join(', ')}) while tasks share this host's network: a task can connect to Gantry from 127.0.0.1 and claim any client address in X-Forwarded-For; run tasks sandboxed in their own network namespace, or have the proxy connect from an address of its own on another host and list that address`,
    );
  for (const entry of trust) {
    const { block } = entryBlock(entry);
    const own = opts.hostAddresses.find((a) => isIP(a) !== 0 && block.check(a, isIP(a) === 4 ? 'ipv4' : 'ipv6'));
    if (own)
      warnings.push(
        `GANTRY_TRUST_PROXY trusts ${entry}, which holds this host's own address ${own}: tasks on this host connect from it and could claim any client address in X-Forwarded-For; list the proxy's exact address instead`,
      );
  }
  return warnings;
}
