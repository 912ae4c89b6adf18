import { createHash } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import type { HttpUpstreamConfig, Layout } from '@mcppipe/config';
import { commaList } from './flagReaders.js';
import { usage } from './util.js';
import { parseCidr } from '@mcppipe/http';
import { isValidUpstreamName } from '@mcppipe/namespace';
import type { TunnelAuthMode } from './flags.js';
import { zeroKnowledgeUpstream } from './zeroKnowledge.js';

/** The tunnel flags of `mcppipe up` (DESIGN.md T2, T5, T7). */
export interface TunnelFlags {
  tunnel: string | undefined;
  apiKey: string | undefined;
  subdomain: string | undefined;
  tunnelAuth: TunnelAuthMode;
  allowIp: readonly string[];
  zeroKnowledge: boolean;
  holdChangedTools: boolean;
}

/** A checked tunnel configuration: what `startTunnel` connects with. */
export interface TunnelPlan {
  /** The relay's connect URL (`…/tunnel/connect`). */
  relayUrl: string;
  /** A secret: never logged. */
  apiKey: string;
  subdomain: string;
  auth: TunnelAuthMode;
  allowIp: string[];
  /** Zero-knowledge (T7): the single HTTP upstream whose bytes are relayed, unparsed. */
  zeroKnowledge: HttpUpstreamConfig | undefined;
  /** `--hold-changed-tools` (E4). */
  holdChangedTools: boolean;
}

/**
 * The default subdomain: `mcp-` and 8 hex digits of SHA-256 over this machine's host name and the sorted upstream
 * names, so the same layout on the same machine keeps its public URL across restarts (docs/cli.md). It fits the
 * subdomain rule `^[a-z][a-z0-9_-]{0,31}$`.
 *
 * @param upstreamNames - the layout's upstream names (any order)
 * @param host - the machine's host name
 */
export function defaultSubdomain(upstreamNames: readonly string[], host: string = osHostname()): string {
  const digest = createHash('sha256')
    .update(`${host}\n${[...upstreamNames].sort().join('\n')}`)
    .digest('hex');
  return `mcp-${digest.slice(0, 8)}`;
}

/**
 * Checks the tunnel flags against the layout before anything starts, so a wrong combination exits 2 at once.
 *
 * @param flags - the parsed flags
 * @param layout - the resolved layout
 * @param host - the machine's host name (for the default subdomain)
 * @returns the plan, or undefined without `--tunnel`
 * @throws McpPipeError `MCPP_CLI_USAGE` (exit 2): a tunnel flag without `--tunnel`, no `--api-key`, a bad relay
 *   URL (or one with a path), subdomain or CIDR, or (`zeroKnowledgeUpstream`) `--zero-knowledge` with an aggregator layout (seed 000's
 *   reason, T7), a stdio upstream or a non-`http://` one
 */
export function planTunnel(flags: TunnelFlags, layout: Layout, host?: string): TunnelPlan | undefined {
  if (flags.tunnel === undefined || flags.tunnel === '') {
    const stray = [
      flags.subdomain !== undefined && '--subdomain',
      flags.allowIp.length > 0 && '--allow-ip',
      flags.zeroKnowledge && '--zero-knowledge',
      flags.tunnelAuth !== 'oauth' && '--tunnel-auth',
      flags.holdChangedTools && '--hold-changed-tools',
    ].filter(Boolean);
    if (stray.length > 0)
      throw usage(
        `${stray.join(', ')} only applies with --tunnel URL (or MCPPIPE_TUNNEL): add the relay's URL`,
      );
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(flags.tunnel);
  } catch {
    throw usage(
      `--tunnel must be the relay's URL, e.g. https://gw.example.com, got ${JSON.stringify(flags.tunnel)}`,
    );
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol))
    throw usage(`--tunnel must be an http(s):// URL, got ${JSON.stringify(flags.tunnel)}`);
  // the base URL only: the connect path is added, and a relay answers nowhere else (a path would dial a wrong URL)
  if (url.pathname !== '/')
    throw usage(
      `--tunnel must be the relay's base URL without a path (/tunnel/connect is added), e.g. ${url.origin}; got ${JSON.stringify(flags.tunnel)}`,
    );
  url.pathname = '/tunnel/connect';
  if (!flags.apiKey)
    throw usage(
      '--tunnel needs --api-key KEY (or MCPPIPE_API_KEY): an API key of your relay account (mcppipe-gateway keys create)',
    );
  const subdomain =
    flags.subdomain ??
    defaultSubdomain(
      layout.upstreams.map((u) => u.name),
      host,
    );
  if (!isValidUpstreamName(subdomain))
    throw usage(
      `--subdomain ${JSON.stringify(subdomain)} is invalid: it must match ^[a-z][a-z0-9_-]{0,31}$ (lowercase, starts with a letter), without "__" and not ending in "_"`,
    );
  const allowIp = commaList(flags.allowIp);
  for (const cidr of allowIp)
    if (parseCidr(cidr) === undefined)
      throw usage(
        `--allow-ip ${JSON.stringify(cidr)} is not an address or CIDR (e.g. 203.0.113.0/24 or 2001:db8::/32)`,
      );
  return {
    relayUrl: url.href,
    apiKey: flags.apiKey,
    subdomain,
    auth: flags.tunnelAuth,
    allowIp,
    zeroKnowledge: flags.zeroKnowledge ? zeroKnowledgeUpstream(layout) : undefined,
    holdChangedTools: flags.holdChangedTools,
  };
}
