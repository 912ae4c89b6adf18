import { createRequire } from 'node:module';
import { McpPipeError } from '@mcppipe/errors';

const require = createRequire(import.meta.url);

/**
 * A usage error (exit 2): a flag or its value is wrong; the message says what to change.
 *
 * @param message - the flag and what to change
 * @returns McpPipeError `MCPP_CLI_USAGE`
 */
export const usage = (message: string): McpPipeError => new McpPipeError('MCPP_CLI_USAGE', message);

/** This package's version. */
export const version: string = (require('mcppipe/package.json') as { version: string }).version;

/**
 * Parses `host:port` (`[::1]:9464` for IPv6) as given to `--metrics-addr`.
 *
 * @throws McpPipeError `MCPP_CLI_USAGE` naming the flag
 */
export function parseHostPort(value: string): [host: string, port: number] {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(value.trim());
  const port = Number(m?.[2]);
  if (!m || !m[1] || port > 65535) {
    throw usage(`--metrics-addr must be HOST:PORT (e.g. 127.0.0.1:9464), got "${value}"`);
  }
  return [m[1].replace(/^\[|\]$/g, ''), port];
}

/** Listen errors that mean the address (the host), not the port: no such address here, or a name that does not resolve. */
const HOST_ERRORS = new Set(['EADDRNOTAVAIL', 'ENOTFOUND']);

/**
 * Turns a listen error into a message that says what to change: the host for an address this machine does not have,
 * else the port.
 *
 * @param err - the error from `listen`
 * @param where - `{ host, port, hint }`, the hint naming what chooses each, e.g.
 *   `hint: { host: '--host (or MCPPIPE_HOST)', port: '--port (or MCPPIPE_PORT)' }`
 * @returns McpPipeError `MCPP_CLI_LISTEN_FAILED` with the cause attached
 */
export function listenFailed(
  err: unknown,
  where: { host: string; port: number; hint: { host: string; port: string } },
): McpPipeError {
  const code = (err as NodeJS.ErrnoException).code;
  const why =
    code === 'EADDRINUSE'
      ? 'the address is already in use'
      : code === 'EACCES'
        ? 'permission denied'
        : code === 'EADDRNOTAVAIL'
          ? 'the address is not available on this machine'
          : (err as Error).message;
  const hint = code !== undefined && HOST_ERRORS.has(code) ? where.hint.host : where.hint.port;
  return new McpPipeError(
    'MCPP_CLI_LISTEN_FAILED',
    `cannot listen on ${where.host}:${where.port}: ${why}; choose another with ${hint}`,
    {
      cause: err,
      data: { host: where.host, port: where.port, code },
    },
  );
}
