/**
 * Turns flags and environment variables into {@link GatewayOptions} (pure; the CLI and tests share it).
 * Flags win over environment variables (`mergeSettings`); every problem is an `McpPipeError` that names what
 * the user typed: the flag, or the variable when the value came from the environment.
 *
 * @module
 */
import { McpPipeError } from '@mcppipe/errors';
import {
  parseBytes,
  parseCount,
  parseLogLevel,
  parseNodeUrl,
  parseOrigins,
  parsePort,
  parseTrustedProxies,
  parseZone,
  usage,
} from './flagParsers.js';
import { isLoopbackHost } from '@mcppipe/http';
import { canonicalPublicUrl } from './resolve.js';
import { SETTINGS } from './settings.js';
import type { SettingKey } from './settings.js';

/** Everything `startGateway` needs to run the process. */
export interface GatewayOptions {
  /** The `mcp.json` path. */
  configPath: string;
  /** `jwt-key.pem`, `state.json` live here. */
  dataDir: string;
  /** The canonical public origin (issuer and resource base). */
  publicUrl: string;
  host: string;
  port: number;
  trustedProxies: string[];
  bodyLimit: number | undefined;
  logFile: string | undefined;
  logLevel: string;
  /** Pre-auth requests per IP per minute. */
  rateLimitPerMinute: number | undefined;
  /** Per-client requests per minute. */
  clientRequestsPerMinute: number | undefined;
  /** Per-client requests in flight. */
  clientConcurrency: number | undefined;
  /** Extra browser origins allowed on MCP endpoints (`*` = any). */
  allowedOrigins: string[];
  /** `--tunnel-zone`: turns the tunnel relay on (T4); tunnels answer at `<sub>--<account>.<zone>`. */
  tunnelZone: string | undefined;
  /** `--redis` / `MCPPIPE_REDIS_URL`: many nodes share state in this Redis (S1, S2). Unset: the files. */
  redisUrl?: string | undefined;
  /** `--node-port`: the node-to-node listener of the relay on many nodes (S2). Default 3100. */
  nodePort?: number;
  /** `--node-url`: the URL peers reach this node's node-to-node listener at. Default: its address. */
  nodeUrl?: string | undefined;
  /** Loopback bind without `--public-url`: each loopback spelling is answered as itself (issue 13.4). */
  loopbackAliases?: boolean;
}

/** Raw values: flags (already merged with their environment fallbacks by yargs) as strings or numbers. */
export interface RawGatewayOptions {
  config?: string;
  dataDir?: string;
  publicUrl?: string;
  host?: string;
  port?: string | number;
  trustedProxies?: string;
  bodyLimit?: string | number;
  logFile?: string;
  logLevel?: string;
  rateLimit?: string | number;
  clientRpm?: string | number;
  clientConcurrency?: string | number;
  allowedOrigins?: string;
  tunnelZone?: string;
  redis?: string;
  nodePort?: string | number;
  nodeUrl?: string;
  /**
   * What the user typed for each value, named in its errors: the flag (`--body-limit`) or the variable
   * (`MCP_BODY_LIMIT`); see `mergeSettings`. Default: the flag.
   */
  names?: Partial<Record<Exclude<keyof RawGatewayOptions, 'names'>, string>>;
}

/**
 * Resolves the options. `--public-url` is required unless the gateway binds a loopback address, where it
 * defaults to `http://<host>:<port>`.
 *
 * @param raw - merged flags and environment
 * @throws McpPipeError `MCPP_GW_PUBLIC_URL_REQUIRED` or `MCPP_CLI_USAGE`
 */
export function resolveGatewayOptions(raw: RawGatewayOptions): GatewayOptions {
  const name = (key: SettingKey): string => raw.names?.[key] ?? SETTINGS[key].flag;
  const host = raw.host ?? '127.0.0.1';
  const port = parsePort(name('port'), raw.port ?? 3000);
  let publicUrl: string;
  if (raw.publicUrl) publicUrl = canonicalPublicUrl(raw.publicUrl, name('publicUrl'));
  else if (isLoopbackHost(host) && port !== 0)
    publicUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  else if (isLoopbackHost(host))
    throw usage('--public-url is required with --port 0 (the URL must be known before listening)');
  else {
    throw new McpPipeError(
      'MCPP_GW_PUBLIC_URL_REQUIRED',
      `PUBLIC_URL (--public-url) is required when binding ${host}: it is the OAuth issuer and the base of every resource URL, e.g. https://gw.example.com`,
    );
  }
  return {
    configPath: raw.config ?? './mcp.json',
    dataDir: raw.dataDir ?? './data',
    publicUrl,
    host,
    port,
    trustedProxies: parseTrustedProxies(raw.trustedProxies, name('trustedProxies')),
    bodyLimit: parseBytes(name('bodyLimit'), raw.bodyLimit),
    logFile: raw.logFile || undefined,
    logLevel: parseLogLevel(name('logLevel'), raw.logLevel ?? 'info'),
    rateLimitPerMinute: parseCount(name('rateLimit'), raw.rateLimit),
    clientRequestsPerMinute: parseCount(name('clientRpm'), raw.clientRpm),
    clientConcurrency: parseCount(name('clientConcurrency'), raw.clientConcurrency),
    allowedOrigins: parseOrigins(raw.allowedOrigins, name('allowedOrigins')),
    tunnelZone: parseZone(name('tunnelZone'), raw.tunnelZone),
    loopbackAliases: !raw.publicUrl && isLoopbackHost(host),
    redisUrl: raw.redis || undefined,
    nodePort: parsePort(name('nodePort'), raw.nodePort ?? 3100),
    nodeUrl: parseNodeUrl(name('nodeUrl'), raw.nodeUrl),
  };
}
