import { createRequire } from 'node:module';
import { McpPipeError } from '@mcppipe/errors';

const require = createRequire(import.meta.url);

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
    throw new McpPipeError('MCPP_CLI_USAGE', `--metrics-addr must be HOST:PORT (e.g. 127.0.0.1:9464), got "${value}"`);
  }
  return [m[1].replace(/^\[|\]$/g, ''), port];
}
