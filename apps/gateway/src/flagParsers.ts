/**
 * Parsers of single flag values (pure). Each problem is an `McpPipeError` `MCPP_CLI_USAGE` naming what the user
 * typed: the flag, or the variable when the value came from the environment (`name`).
 *
 * @module
 */
import { McpPipeError } from '@mcppipe/errors';
import { parseCidr } from '@mcppipe/http';

/** A usage error naming the flag. */
export const usage = (message: string) => new McpPipeError('MCPP_CLI_USAGE', message);
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Parses `TRUSTED_PROXIES`: addresses, CIDRs or `loopback`/`linklocal`/`uniquelocal`, separated by
 * commas or spaces. A bare number (a hop count) or `true` is refused: trusting "the last N hops" lets any
 * client spoof `X-Forwarded-For`.
 *
 * @param raw - the list
 * @param name - the flag or variable it came from, for messages (default `TRUSTED_PROXIES`)
 * @throws McpPipeError `MCPP_CLI_USAGE`
 */
export function parseTrustedProxies(raw: string | undefined, name = 'TRUSTED_PROXIES'): string[] {
  const items = (raw ?? '').split(/[\s,]+/).filter(Boolean);
  for (const item of items) {
    if (NAMED_RANGES.has(item)) continue;
    if (parseCidr(item) === undefined) {
      throw usage(
        `${name}: "${item}" is not an address or CIDR (a hop count is not accepted; list the proxies' addresses, e.g. 10.0.0.0/8)`,
      );
    }
  }
  return items;
}

/**
 * Parses a byte size: `1048576`, `512kb`, `4mb` (binary units).
 *
 * @param name - the flag or variable it came from, for messages
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
 * @param name - the flag or variable it came from, for messages (default `ALLOWED_ORIGINS`)
 * @throws McpPipeError `MCPP_CLI_USAGE` for an entry that is not an origin
 */
export function parseOrigins(raw: string | undefined, name = 'ALLOWED_ORIGINS'): string[] {
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
        `${name}: "${item}" is not an origin such as https://app.example.com (no path, no trailing slash)`,
      );
    }
  }
  return items;
}

/** The log levels `--log-level` accepts: pino's, from most to least verbose, and `silent`. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/**
 * Parses `--log-level`: one of {@link LOG_LEVELS}.
 *
 * @param name - the flag or variable it came from, for messages
 * @param raw - the value
 * @throws McpPipeError `MCPP_CLI_USAGE` naming the valid levels
 */
export function parseLogLevel(name: string, raw: string): string {
  if ((LOG_LEVELS as readonly string[]).includes(raw)) return raw;
  throw usage(`${name}: "${raw}" is not a log level; use one of ${LOG_LEVELS.join(', ')}`);
}

/**
 * Parses a positive integer flag.
 *
 * @param name - the flag or variable it came from, for messages
 * @param raw - the value
 */
export function parseCount(name: string, raw: string | number | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw usage(`${name}: "${String(raw)}" is not a positive integer`);
  return n;
}

const ZONE = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * Parses `--tunnel-zone`: a DNS name, lower-cased, without a trailing dot.
 *
 * @param name - the flag or variable it came from, for messages
 * @param raw - the value
 */
export function parseZone(name: string, raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const zone = raw.trim().toLowerCase().replace(/\.$/, '');
  if (!ZONE.test(zone))
    throw usage(`${name}: "${raw}" is not a DNS name; give the wildcard's parent, e.g. tunnel.example.com`);
  return zone;
}

/**
 * Parses a port (0 to 65535).
 *
 * @param name - the flag or variable it came from, for messages
 * @param raw - the value
 */
export function parsePort(name: string, raw: string | number): number {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw usage(`${name}: "${String(raw)}" is not a port`);
  return port;
}

/**
 * Parses `--node-url`: an `http://` URL, without trailing slashes.
 *
 * @param name - the flag or variable it came from, for messages
 * @param raw - the value
 */
export function parseNodeUrl(name: string, raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const ok = URL.canParse(raw) && new URL(raw).protocol === 'http:';
  if (!ok) throw usage(`${name}: "${raw}" is not an http:// URL such as http://10.0.0.5:3100`);
  return raw.replace(/\/+$/, '');
}
