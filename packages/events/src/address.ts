import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { privateTargetError } from './errors.js';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/**
 * Whether an IP address is loopback, private, link-local, multicast or otherwise not a public unicast address
 * (E3). IPv4-mapped and NAT64 IPv6 addresses are judged by the IPv4 address inside.
 *
 * @param address - an IPv4 or IPv6 literal
 * @returns true for a non-public address (and for anything that is not an IP literal)
 */
export function isPrivateAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '');
  const family = isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family !== 6) return true;
  const lower = ip.toLowerCase();
  const embedded = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower)?.[1];
  if (embedded) return blocked.check(embedded, 'ipv4');
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (mapped) {
    const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
    return blocked.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
  }
  return blocked.check(ip, 'ipv6');
}

/** Resolves a host name to every address (`dns.lookup`, as connections do). */
export type Resolver = (host: string) => Promise<LookupAddress[]>;

/** The default resolver: `dns.lookup(host, { all: true })`. */
export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses),
    ),
  );

/**
 * Resolves `host` and refuses it when any address is non-public (an IP literal is judged as is).
 *
 * @param host - a URL's hostname
 * @param resolver - the DNS resolver
 * @returns the addresses
 * @throws McpPipeError `MCPP_EVENTS_PRIVATE_TARGET`
 */
export async function resolvePublic(host: string, resolver: Resolver): Promise<LookupAddress[]> {
  const bare = host.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  const addresses = family ? [{ address: bare, family }] : await resolver(bare);
  const bad = addresses.find((a) => isPrivateAddress(a.address));
  if (bad) throw privateTargetError(bare, bad.address);
  return addresses;
}

/**
 * A `lookup` for `http.request` that connects only to addresses checked at connection time (no DNS-rebinding
 * window between the check and the connect).
 *
 * @param resolver - the DNS resolver
 * @param allowPrivate - skip the check
 */
export function checkedLookup(resolver: Resolver, allowPrivate: boolean) {
  return (
    host: string,
    options: LookupOptions,
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    const run = allowPrivate ? resolver(host) : resolvePublic(host, resolver);
    run.then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: Error) => callback(err, ''),
    );
  };
}
