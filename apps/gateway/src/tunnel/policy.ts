/**
 * A tunnel's access policy (DESIGN.md T5), chosen by the CLI at connect in the package's connect metadata
 * (`X-Mcppipe-Metadata`): `auth` = `oauth` (default) | `api-key` | `none`, and `allow` = comma-separated CIDRs
 * (the IP allowlist, checked on the client address after `TRUSTED_PROXIES`). Parsed once per tunnel.
 *
 * @module
 */
import { BlockList, isIP } from 'node:net';
import { parseCidr } from '@mcppipe/http';

/** The metadata keys the relay reads (documented in packages/tunnel/README.md). */
export const POLICY_KEYS = { auth: 'auth', allow: 'allow' } as const;

/** How agents authenticate at a tunnel. */
export type TunnelAuthMode = 'oauth' | 'api-key' | 'none';

/** A parsed policy. */
export interface TunnelPolicy {
  auth: TunnelAuthMode;
  /** Undefined: every address is allowed. */
  allow: BlockList | undefined;
}

const MODES = new Set<string>(['oauth', 'api-key', 'none']);

/**
 * Parses a tunnel's policy from its connect metadata.
 *
 * @param metadata - the tunnel's metadata
 * @returns the policy, or a message saying what to change
 */
export function parsePolicy(metadata: Readonly<Record<string, string>>): TunnelPolicy | string {
  const auth = metadata[POLICY_KEYS.auth] ?? 'oauth';
  if (!MODES.has(auth)) return `auth "${auth}" is not one of oauth, api-key, none`;
  const items = (metadata[POLICY_KEYS.allow] ?? '').split(/[\s,]+/).filter(Boolean);
  if (items.length === 0) return { auth: auth as TunnelAuthMode, allow: undefined };
  const allow = new BlockList();
  for (const item of items) {
    const cidr = parseCidr(item);
    if (cidr === undefined)
      return `allow: "${item}" is not an address or CIDR (e.g. 10.0.0.0/8, 2001:db8::/32)`;
    allow.addSubnet(cidr.address, cidr.prefix, cidr.family);
  }
  return { auth: auth as TunnelAuthMode, allow };
}

/**
 * Whether a client address passes the allowlist.
 *
 * @param policy - the tunnel's policy
 * @param ip - the client address (`req.ip`, after `TRUSTED_PROXIES`)
 * @returns whether it may reach the tunnel
 */
export function allowed(policy: TunnelPolicy, ip: string): boolean {
  if (policy.allow === undefined) return true;
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (v4 !== undefined) return policy.allow.check(v4, 'ipv4');
  const family = isIP(ip);
  return family !== 0 && policy.allow.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}
