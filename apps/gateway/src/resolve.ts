/**
 * Applies the defaults to {@link GatewayDeps} once, at construction (STYLE.md §6: options are validated
 * when built, not at first use).
 *
 * @module
 */
import { McpPipeError } from '@mcppipe/errors';
import * as d from './defaults.js';
import { createBaseUrlOf } from './pipeline/loopbackAliases.js';
import { isLoopbackHost } from '@mcppipe/http';
import type { GatewayDeps, Logger } from './types.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** {@link GatewayDeps} with every default applied. */
export type ResolvedDeps = ReturnType<typeof resolveDeps>;

function positive(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0)
    throw new McpPipeError('MCPP_CLI_USAGE', `${name} must be a positive number, got ${String(value)}`);
  return v;
}

/**
 * Normalizes a public URL to its canonical form: an `http(s)` origin without a trailing slash.
 *
 * @param raw - the configured public URL
 * @param name - the flag or variable it came from, for messages (default `PUBLIC_URL`)
 * @throws McpPipeError `MCPP_CLI_USAGE` when it is not an http(s) URL without path, query or fragment
 */
export function canonicalPublicUrl(raw: string, name = 'PUBLIC_URL'): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new McpPipeError('MCPP_CLI_USAGE', `${name} "${raw}" is not a URL`);
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    (url.pathname !== '/' && url.pathname !== '') ||
    url.search ||
    url.hash ||
    url.username
  ) {
    throw new McpPipeError(
      'MCPP_CLI_USAGE',
      `${name} must be an http(s) origin such as https://gw.example.com, got "${raw}"`,
    );
  }
  return url.origin;
}

/**
 * Applies defaults and validates limits.
 *
 * @param deps - what the caller passed to `buildApp`
 */
export function resolveDeps(deps: GatewayDeps) {
  const host = deps.host ?? '127.0.0.1';
  const publicUrl = canonicalPublicUrl(deps.publicUrl);
  const loopback = isLoopbackHost(host);
  return {
    ...deps,
    publicUrl,
    /** The base URL a request is answered with (see `loopbackAliases`): the public URL unless aliased. */
    baseUrlOf: createBaseUrlOf(publicUrl, loopback && deps.loopbackAliases === true),
    host,
    loopback,
    logger: deps.logger ?? silent,
    bodyLimit: positive('MCP_BODY_LIMIT', deps.bodyLimit, d.DEFAULT_BODY_LIMIT_BYTES),
    maxJsonDepth: positive('maxJsonDepth', deps.maxJsonDepth, d.DEFAULT_MAX_JSON_DEPTH),
    proxyTimeoutMs: positive('proxyTimeoutMs', deps.proxyTimeoutMs, d.DEFAULT_PROXY_TIMEOUT_MS),
    now: deps.now ?? Date.now,
    rateLimit: {
      max: positive('rate limit', deps.rateLimit?.max, d.DEFAULT_RATE_LIMIT_MAX),
      timeWindowMs: positive(
        'rate limit window',
        deps.rateLimit?.timeWindowMs,
        d.DEFAULT_RATE_LIMIT_WINDOW_MS,
      ),
      cacheSize: positive(
        'rate limit cache size',
        deps.rateLimit?.cacheSize,
        d.DEFAULT_RATE_LIMIT_CACHE_SIZE,
      ),
      ...(deps.rateLimit?.shared && { shared: deps.rateLimit.shared }),
      ...(deps.rateLimit?.onRefused && { onRefused: deps.rateLimit.onRefused }),
    },
    clientLimits: {
      requestsPerMinute: positive(
        'client requests per minute',
        deps.clientLimits?.requestsPerMinute,
        d.DEFAULT_CLIENT_REQUESTS_PER_MINUTE,
      ),
      maxInFlight: positive(
        'client concurrency',
        deps.clientLimits?.maxInFlight,
        d.DEFAULT_CLIENT_MAX_IN_FLIGHT,
      ),
      tableSize: positive('client table size', deps.clientLimits?.tableSize, d.DEFAULT_CLIENT_TABLE_SIZE),
    },
    timeouts: {
      headersTimeoutMs: positive(
        'headersTimeout',
        deps.timeouts?.headersTimeoutMs,
        d.DEFAULT_HEADERS_TIMEOUT_MS,
      ),
      requestTimeoutMs: positive(
        'requestTimeout',
        deps.timeouts?.requestTimeoutMs,
        d.DEFAULT_REQUEST_TIMEOUT_MS,
      ),
      connectionTimeoutMs: positive(
        'connectionTimeout',
        deps.timeouts?.connectionTimeoutMs,
        d.DEFAULT_CONNECTION_TIMEOUT_MS,
      ),
      keepAliveTimeoutMs: positive(
        'keepAliveTimeout',
        deps.timeouts?.keepAliveTimeoutMs,
        d.DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
      ),
    },
  };
}
