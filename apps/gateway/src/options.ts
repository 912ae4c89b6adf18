/**
 * Turns flags and environment variables into {@link GatewayOptions} (pure; the CLI and tests share it).
 * Flags win over environment variables; every problem is an `McpPipeError` that names the flag.
 *
 * @module
 */
import { isIP } from 'node:net';
import { McpPipeError } from '@mcppipe/errors';
import { isLoopbackHost } from './pipeline/origin.js';
import { canonicalPublicUrl } from './resolve.js';

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
}

const usage = (message: string) => new McpPipeError('MCPP_CLI_USAGE', message);
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Parses `TRUSTED_PROXIES`: addresses, CIDRs or `loopback`/`linklocal`/`uniquelocal`, separated by
 * commas or spaces. A bare number (a hop count) or `true` is refused: trusting "the last N hops" lets any
 * client spoof `X-Forwarded-For`.
 *
 * @param raw - the list
 * @throws McpPipeError `MCPP_CLI_USAGE`
 */
export function parseTrustedProxies(raw: string | undefined): string[] {
  const items = (raw ?? '').split(/[\s,]+/).filter(Boolean);
  for (const item of items) {
    if (NAMED_RANGES.has(item)) continue;
    const [address = '', prefix, extra] = item.split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const okPrefix = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= max);
    if (family === 0 || !okPrefix || extra !== undefined) {
      throw usage(
        `TRUSTED_PROXIES: "${item}" is not an address or CIDR (a hop count is not accepted; list the proxies' addresses, e.g. 10.0.0.0/8)`,
      );
    }
  }
  return items;
}

/**
 * Parses a byte size: `1048576`, `512kb`, `4mb` (binary units).
 *
 * @param name - the flag, for messages
 * @param raw - the value
 */
export function parseBytes(name: string, raw: string | number | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const m = /^(\d+)\s*(k|kb|kib|m|mb|mib)?$/i.exec(String(raw).trim());
  const n = m ? Number(m[1]) * (m[2] ? (m[2].toLowerCase().startsWith('k') ? 1024 : 1024 * 1024) : 1) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0)
    throw usage(`${name}: "${String(raw)}" is not a size in bytes (e.g. 4194304 or 4mb)`);
  return n;
}

/**
 * Parses `ALLOWED_ORIGINS`: origins (`https://app.example.com`) or `*`, separated by commas or spaces.
 *
 * @param raw - the list
 * @throws McpPipeError `MCPP_CLI_USAGE` for an entry that is not an origin
 */
export function parseOrigins(raw: string | undefined): string[] {
  const items = (raw ?? '').split(/[\s,]+/).filter(Boolean);
  for (const item of items) {
    let origin: string | undefined;
    try {
      origin = new URL(item).origin;
    } catch {
      origin = undefined;
    }
    if (item !== '*' && origin !== item) {
      throw usage(
        `ALLOWED_ORIGINS: "${item}" is not an origin such as https://app.example.com (no path, no trailing slash)`,
      );
    }
  }
  return items;
}

function parseCount(name: string, raw: string | number | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw usage(`${name}: "${String(raw)}" is not a positive integer`);
  return n;
}

/**
 * Resolves the options. `--public-url` is required unless the gateway binds a loopback address, where it
 * defaults to `http://<host>:<port>`.
 *
 * @param raw - merged flags and environment
 * @throws McpPipeError `MCPP_GW_PUBLIC_URL_REQUIRED` or `MCPP_CLI_USAGE`
 */
export function resolveGatewayOptions(raw: RawGatewayOptions): GatewayOptions {
  const host = raw.host ?? '127.0.0.1';
  const port = Number(raw.port ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw usage(`--port: "${String(raw.port)}" is not a port`);
  let publicUrl: string;
  if (raw.publicUrl) publicUrl = canonicalPublicUrl(raw.publicUrl);
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
    trustedProxies: parseTrustedProxies(raw.trustedProxies),
    bodyLimit: parseBytes('MCP_BODY_LIMIT', raw.bodyLimit),
    logFile: raw.logFile || undefined,
    logLevel: raw.logLevel ?? 'info',
    rateLimitPerMinute: parseCount('--rate-limit', raw.rateLimit),
    clientRequestsPerMinute: parseCount('--client-rpm', raw.clientRpm),
    clientConcurrency: parseCount('--client-concurrency', raw.clientConcurrency),
    allowedOrigins: parseOrigins(raw.allowedOrigins),
  };
}
