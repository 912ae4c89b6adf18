/**
 * Tunnel public addresses (DESIGN.md T4): `<subdomain>--<account>.<zone>` routed by `Host`, and the path form
 * `<publicUrl>/t/<subdomain>--<account>/…`. Pure functions; the relay hook uses them per request.
 *
 * @module
 */
import { isValidUpstreamName } from '@mcppipe/namespace';

/** The metadata path prefix (RFC 9728 §3.1). */
export const PRM_PREFIX = '/.well-known/oauth-protected-resource';

/** A request addressed to a tunnel. */
export interface TunnelAddress {
  /** `<subdomain>--<account>` as written in the address. */
  label: string;
  /** The tunnel's public base (no trailing slash): `https://s--a.zone` or `https://gw/t/s--a`. */
  base: string;
  /** Path and query to forward to the CLI (the path form's `/t/<label>` prefix removed). */
  path: string;
  /** The public host the agent used (`X-Forwarded-Host`). */
  host: string;
  /** The `(subdomain, account)` readings of the label (a label with several `--` has several). */
  candidates: { subdomain: string; account: string }[];
}

/** The zone and the public URL, parsed once. */
export interface ZoneConfig {
  zone: string;
  publicUrl: string;
  /** `https:` or `http:` (the public URL's; TLS ends in front of the relay). */
  protocol: string;
  /** `:port` of the public URL, or empty. */
  portSuffix: string;
  /** The public URL's host. */
  publicHost: string;
}

/**
 * Parses the zone settings.
 *
 * @param zone - e.g. `tunnel.example.com`
 * @param publicUrl - the gateway's canonical public URL
 * @returns the parsed config
 */
export function zoneConfig(zone: string, publicUrl: string): ZoneConfig {
  const url = new URL(publicUrl);
  return {
    zone: zone.toLowerCase().replace(/\.$/, ''),
    publicUrl,
    protocol: url.protocol,
    portSuffix: url.port ? `:${url.port}` : '',
    publicHost: url.host,
  };
}

/**
 * The `(subdomain, account)` readings of a label, each part a valid name.
 *
 * @param label - `<subdomain>--<account>`
 * @returns the readings, first split first
 */
export function splitLabel(label: string): { subdomain: string; account: string }[] {
  const out: { subdomain: string; account: string }[] = [];
  for (let i = label.indexOf('--'); i > 0; i = label.indexOf('--', i + 1)) {
    const subdomain = label.slice(0, i);
    const account = label.slice(i + 2);
    if (isValidUpstreamName(subdomain) && isValidUpstreamName(account)) out.push({ subdomain, account });
  }
  return out;
}

/**
 * The two public bases of a tunnel.
 *
 * @param config - the zone config
 * @param label - `<subdomain>--<account>`
 * @returns the host-form and path-form bases
 */
export function tunnelBases(config: ZoneConfig, label: string): { host: string; path: string } {
  return {
    host: `${config.protocol}//${label}.${config.zone}${config.portSuffix}`,
    path: `${config.publicUrl}/t/${label}`,
  };
}

const PATH_FORM = /^\/t\/([^/?#]+)(\/[^?#]*)?(\?.*)?$/;

/**
 * Reads a request's tunnel address, if it has one.
 *
 * @param config - the zone config
 * @param hostHeader - the `Host` header
 * @param url - the request target
 * @returns the address, or undefined for the gateway's own routes
 */
export function tunnelAddress(
  config: ZoneConfig,
  hostHeader: string | undefined,
  url: string,
): TunnelAddress | undefined {
  const host = (hostHeader ?? '').toLowerCase();
  const hostname = host.replace(/:\d+$/, '');
  if (hostname.endsWith(`.${config.zone}`)) {
    const label = hostname.slice(0, -(config.zone.length + 1));
    if (label.includes('.')) return undefined;
    return { label, base: tunnelBases(config, label).host, path: url, host, candidates: splitLabel(label) };
  }
  const m =
    PATH_FORM.exec(url) ?? PATH_FORM.exec(url.startsWith(PRM_PREFIX) ? url.slice(PRM_PREFIX.length) : '');
  if (!m?.[1]) return undefined;
  const label = m[1];
  const metadata = !url.startsWith('/t/');
  const rest = `${m[2] ?? '/'}${m[3] ?? ''}`;
  return {
    label,
    base: tunnelBases(config, label).path,
    // the path form's metadata lives on the gateway at /.well-known/…/t/<label>/mcp: mark it as the tunnel's
    path: metadata ? `${PRM_PREFIX}${rest}` : rest,
    host: config.publicHost,
    candidates: splitLabel(label),
  };
}

/** Parsed addresses kept per (Host, URL): an agent sends the same pair on every call. Cleared when full. */
const ADDRESS_CACHE_SIZE = 1_024;

/**
 * The relay's per-request address parse, done once per (Host, URL): {@link tunnelAddress}, and the tunnel's resource
 * URL (`<base>/mcp`), kept in a map of at most 1,024 entries (cleared when full).
 *
 * @param zone - the zone
 * @returns `(host, url)` → the address and resource, or undefined when the request is not for a tunnel
 */
export function addressCache(
  zone: ZoneConfig,
): (host: string | undefined, url: string) => { address: TunnelAddress; resource: string } | undefined {
  const addresses = new Map<string, { address: TunnelAddress; resource: string } | undefined>();
  return (host, url) => {
    const key = `${host ?? ''} ${url}`;
    if (addresses.has(key)) return addresses.get(key);
    const address = tunnelAddress(zone, host, url);
    const parsed = address && { address, resource: `${address.base}/mcp` };
    if (addresses.size >= ADDRESS_CACHE_SIZE) addresses.clear();
    addresses.set(key, parsed);
    return parsed;
  };
}
