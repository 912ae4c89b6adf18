/**
 * The one parser of "an IP address or a CIDR" for every address list of this repository: a tunnel's IP allowlist
 * (T5, `--allow-ip` and the connect metadata's `allow`) and the gateway's `TRUSTED_PROXIES`.
 *
 * @module
 */
import { isIP } from 'node:net';

/** An address or CIDR as `net.BlockList.addSubnet` takes it. */
export interface Cidr {
  /** The network address as written, e.g. `10.0.0.0`, `2001:db8::`. */
  address: string;
  /** The prefix length in bits: 0–32 for IPv4, 0–128 for IPv6; a bare address is a /32 or /128. */
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/**
 * Parses an IP address or a CIDR: `203.0.113.7`, `10.0.0.0/8`, `::1`, `2001:db8::/32`. The prefix is 1 to 3 decimal
 * digits within the family's width; anything else (a host name, a hop count, an empty or second `/` part, `/33`) is
 * not one.
 *
 * @param text - one list item, trimmed
 * @returns the parts, or undefined when `text` is not an address or CIDR
 * @example
 * ```ts
 * parseCidr('10.0.0.0/8'); // { address: '10.0.0.0', prefix: 8, family: 'ipv4' }
 * parseCidr('10.0.0.0/'); // undefined (not /0)
 * ```
 */
export function parseCidr(text: string): Cidr | undefined {
  const [address = '', prefix, extra] = text.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return undefined;
  const max = version === 4 ? 32 : 128;
  if (prefix !== undefined && !/^\d{1,3}$/.test(prefix)) return undefined;
  const bits = prefix === undefined ? max : Number(prefix);
  return bits > max ? undefined : { address, prefix: bits, family: version === 4 ? 'ipv4' : 'ipv6' };
}
