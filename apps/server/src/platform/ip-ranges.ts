import net from 'node:net';

/**
 * Which addresses a user-given URL may not reach (safe-fetch.ts): the server's own loopback, the
 * private networks behind it, link-local (the cloud metadata service at 169.254.169.254),
 * unique-local, multicast, unspecified and reserved ones, and IPv6 forms that carry such an IPv4
 * address (IPv4-mapped, IPv4-compatible, NAT64, 6to4). Pure: parsed here, no DNS, no I/O.
 */

/** IPv4 ranges [first octets as a 32-bit number, prefix length] refused. */
const V4_BLOCKED: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT (shared)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

function v4ToNumber(address: string): number {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

const V4_RANGES = V4_BLOCKED.map(([base, bits]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { base: (v4ToNumber(base) & mask) >>> 0, mask };
});

function v4Blocked(n: number): boolean {
  return V4_RANGES.some((r) => (n & r.mask) >>> 0 === r.base);
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function v6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  // A trailing dotted IPv4 part ("::ffff:10.0.0.1") is written as its two hex groups.
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const n = v4ToNumber(dotted[1]!) >>> 0;
    text = `${text.slice(0, dotted.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (s: string | undefined) =>
    s
      ? s
          .split(':')
          .filter(Boolean)
          .map((g) => parseInt(g, 16))
      : [];
  const left = parse(head);
  const right = parse(rest);
  if (rest === undefined) return left;
  const zeros = new Array<number>(Math.max(0, 8 - left.length - right.length)).fill(0);
  return [...left, ...zeros, ...right];
}

function v6Blocked(g: number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded = ((g6 << 16) >>> 0) + g7;
  const firstFiveZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  // ::/96 — unspecified (::), loopback (::1) and the deprecated IPv4-compatible form: all refused.
  if (firstFiveZero && g5 === 0) return true;
  // ::ffff:0:0/96 — IPv4-mapped: judged as the IPv4 address it carries.
  if (firstFiveZero && g5 === 0xffff) return v4Blocked(embedded);
  // 64:ff9b::/96 — NAT64 well-known prefix: the IPv4 address it translates to.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return v4Blocked(embedded);
  // 2002::/16 — 6to4: the IPv4 address in the next 32 bits.
  if (g0 === 0x2002) return v4Blocked(((g1 << 16) >>> 0) + g2);
  if ((g0 & 0xfe00) === 0xfc00) return true; // fc00::/7 unique-local
  if ((g0 & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g0 & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  if ((g0 & 0xff00) === 0xff00) return true; // ff00::/8 multicast
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return true; // 100::/64 discard
  if (g0 === 0x2001 && g1 === 0xdb8) return true; // 2001:db8::/32 documentation
  return false;
}

/**
 * Whether a user-given URL may not reach this address. Anything that is not an IP address is
 * refused too: the caller checks resolved addresses only.
 */
export function isBlockedAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return v4Blocked(v4ToNumber(address) >>> 0);
  if (family === 6) return v6Blocked(v6Groups(address));
  return true;
}

/** One spelling per address (IPv6 lower case, zeros folded), for comparing allow-list entries. */
export function canonicalAddress(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '');
  // A fully qualified name ("host.example.") is the same host as without its final dot.
  if (net.isIP(bare) !== 6) return bare.toLowerCase().replace(/\.$/, '');
  return v6Groups(bare)
    .map((g) => g.toString(16))
    .join(':');
}
